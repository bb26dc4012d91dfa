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
        while let (r, _) = run.next() { out[r.patientID, default: []].append(describe(r)) }
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
            while let (r, _) = run.next() {
                #expect(r.patientID == patientID)
                got[patientID, default: []].append(Self.describe(r))
            }
        }
        #expect(got == expected)
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
