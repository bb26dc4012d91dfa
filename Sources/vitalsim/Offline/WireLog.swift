import Foundation
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

/// `vitalsim generate --sut PROFILE`: every request of a scenario exactly as a run through the
/// profile would send it, one JSON line each (`wire.jsonl`), so that an independent validator (an
/// R4 library, a schema checker) can read the bodies without a live run: transport, method, path or
/// topic, content type, header lines, reading ids, the corruption it carries on purpose (with the
/// field and refusal level a conforming SUT names), and the body as text or base64.
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
        var routes = profile.ingestion.routes
        if let claimed = profile.conformance.kinds {
            routes.withheld = Set(VitalKind.allCases.filter { !claimed.contains($0.rawValue) })
        }
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
            file.write(Data((line(request, index: count).serialized() + "\n").utf8))
            count += 1
        }
        return count
    }

    /// One request's line.
    func line(_ request: PlannedRequest, index: Int) -> JSONValue {
        var fields: [(String, JSONValue)] = [("i", .int(Int64(index))), ("transport", .string(request.transport))]
        if let topic = request.topic {
            fields.append(("topic", .string(topic)))
            fields.append(("properties", .object(request.userProperties.map { ($0.name, .string($0.value)) })))
        } else {
            fields += [
                ("method", .string(request.method)), ("path", .string(request.path)),
                ("contentType", .string(request.contentType)),
                ("headers", .array(request.headers.map { .string($0) })),
            ]
        }
        fields.append(("readings", .array(request.readings.map { .string($0.id) })))
        if let corrupt = request.expectedRejection {
            var what: [(String, JSONValue)] = [("field", .string(corrupt.wireField))]
            if let corruption = corrupt.corruption { what.append(("corruption", .string(corruption))) }
            if let level = corrupt.level { what.append(("level", .string(level.rawValue))) }
            fields.append(("corrupt", .object(what)))
        }
        if let text = String(validating: request.body, as: UTF8.self), !text.contains("\u{0}") {
            fields.append(("body", .string(text)))
        } else {
            fields.append(("bodyBase64", .string(Data(request.body).base64EncodedString())))
        }
        return .object(fields)
    }
}
