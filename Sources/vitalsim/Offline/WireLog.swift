import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

/// `vitalsim generate --sut PROFILE`: every request of a scenario exactly as a run through the
/// profile would send it, one JSON line each (`wire.jsonl`, ``PlannedRequest/logLine(_:wire:)``),
/// so that an independent validator (an R4 library, a schema checker) can read the bodies without
/// a live run.
struct WireLog {
    let profile: SUTProfile
    let runID: String

    /// The requests of `scenario` (seed `seed`) through the profile: written to `path`; their count,
    /// or why a reading cannot be sent through it (no route carries it, or its format has no form).
    func write(_ scenario: Scenario, seed: UInt64?, to path: String) throws -> Int {
        let naming: WireNaming
        do throws(WireNamingError) {
            naming = try profile.lifecycle.naming(run: runID, scenario: scenario)
        } catch {
            throw CommandFailure.input("\(scenario.name): \(error)")
        }
        let routes = profile.sendingRoutes
        let plan = TrafficPlanStream(
            for: scenario,
            seed: seed,
            routes: routes,
            naming: naming,
            mqttTopic: profile.mqtt.topic
        )
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw CommandFailure.input("cannot write \(path)") }
        defer { try? file.close() }
        var count = 0
        for request in plan {
            if let unroutable = request.unroutable { throw CommandFailure.input("\(scenario.name): \(unroutable)") }
            file.write(Data((request.logLine(count, wire: true).serialized() + "\n").utf8))
            count += 1
        }
        return count
    }
}
