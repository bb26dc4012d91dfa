import Foundation
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// A scenario regenerated one patient at a time gives each patient the readings the whole run gives
/// it, in the same order: what the judge relies on to rebuild a ward's readings after a run with
/// one patient's devices in memory at a time.
@Suite struct PatientRunsTests {
    /// Each patient's readings (id, kind, device time, measurement), in the run's order.
    static func whole(_ scenario: Scenario) -> [String: [String]] {
        var out: [String: [String]] = [:]
        var run = ScenarioRun(scenario: scenario)
        while let (reading, _) = run.next() { out[reading.patientID, default: []].append(describe(reading)) }
        return out
    }

    static func describe(_ r: Reading) -> String { "\(r.id) \(r.deviceTime) \(r.intendedEmitTime) \(r.measurement)" }

    static let core: [String] = {
        let folder = Fixtures.repositoryRoot + "/scenarios/core"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder + "/" + $0 }
    }()

    @Test(arguments: core)
    func eachPatientAloneGetsItsReadingsOfTheWholeRun(_ path: String) throws {
        let scenario = try ScenarioLoader.load(path: path)
        let expected = Self.whole(scenario)
        var got: [String: [String]] = [:]
        for (patientID, var run) in PatientRuns(scenario, seed: nil, patients: Set(scenario.patients.map(\.id))) {
            while let (reading, _) = run.next() {
                #expect(reading.patientID == patientID)
                got[patientID, default: []].append(Self.describe(reading))
            }
        }
        #expect(got == expected)
    }

    /// The wanted readings, each once, in each patient's order; an id the scenario never generates
    /// is not found (and does not stop the others being found).
    @Test func theWantedReadingsEachOnce() throws {
        let path = Fixtures.repositoryRoot + "/scenarios/core/caregiver-sees-own-patient-only.yaml"
        let scenario = try ScenarioLoader.load(path: path)
        let whole = Self.whole(scenario)
        let last = try #require(scenario.patients.last?.id)
        let ids = try #require(whole[last]).map { String($0.split(separator: " ")[0]) }
        try #require(ids.count >= 3)
        let wanted = [last: Set([ids[2], ids[0], last + "/nothing/0"])]
        var found: [String] = []
        PatientRuns.readings(wanted, of: scenario, seed: nil) { found.append($0.id) }
        #expect(found == [ids[0], ids[2]])
    }

    /// Only the patients asked for, in file order; a patient the scenario lacks is no run.
    @Test func onlyThePatientsAskedForInFileOrder() throws {
        let path = Fixtures.repositoryRoot + "/scenarios/core/caregiver-sees-own-patient-only.yaml"
        let scenario = try ScenarioLoader.load(path: path)
        let ids = scenario.patients.map(\.id)
        try #require(ids.count >= 2)
        let asked: Set<String> = [ids[ids.count - 1], ids[0], "nobody"]
        #expect(PatientRuns(scenario, seed: nil, patients: asked).map(\.patientID) == [ids[0], ids[ids.count - 1]])
    }
}
