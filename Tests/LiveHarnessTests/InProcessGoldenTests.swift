import Foundation
import InProcessSUT
import Judge
import LiveHarness
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// `vitalsim record` and `vitalsim run` in-process: golden files recorded against the reference
/// SUT hold the expected alerts and rejections, a run against them passes, and a missing or broken
/// golden file is an input error naming it (never a clinical finding).
final class InProcessGoldenTests {
    let directory = Fixtures.temporaryDirectory("in-process-golden")
    var golden: String { directory + "/golden" }
    let crisis = InProcessRun.path("core", "hypertensive-crisis")
    let corrupt = InProcessRun.path("core", "corrupt-and-duplicate-payloads")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Records the golden file of the scenario at `path` into ``golden``, against a fresh SUT.
    func record(_ path: String) async throws {
        let golden = golden
        try await InProcessSUT(scenario: TracedScenarioLoader.load(path: path)).test { client in
            var options = InProcessRun.options(client)
            options.reports.ci = false
            options.reports.goldenDirectory = golden
            _ = try await LiveSuite(options: options).record([path], progress: { _ in })
        }
    }

    func parse(_ name: String) throws -> GoldenFile {
        try GoldenFile.parse(String(contentsOfFile: golden + "/\(name).golden.yaml", encoding: .utf8), file: name)
    }

    @Test func recordedGoldenFilesHoldTheExpectedAlertsAndRejectionsAndPass() async throws {
        try await record(crisis)
        try await record(corrupt)
        let crisisGolden = try parse("hypertensive-crisis")
        #expect(crisisGolden.alerts.map(\.rule) == ["bp.hypertensive-crisis"])
        #expect(crisisGolden.alerts.first?.severity == .high)
        #expect(crisisGolden.alerts.first.map { $0.to - $0.from } == GoldenFile.defaultEarly + GoldenFile.defaultLate)
        let corruptGolden = try parse("corrupt-and-duplicate-payloads")
        #expect(!corruptGolden.validation.isEmpty, "the corrupted payloads are rejected")
        #expect(Set(corruptGolden.validation.map(\.status)) == [400])
        #expect(Set(corruptGolden.validation.map(\.field)).subtracting(["", "unit", "value", "systolic"]) == [])
        // Deterministic traffic: the same scenario and seed give the same digest, another seed another.
        let scenario = try ScenarioLoader.load(path: corrupt)
        #expect(TrafficPlan.digest(TrafficPlan.requests(for: scenario)) == corruptGolden.trafficDigest)
        #expect(TrafficPlan.digest(TrafficPlan.requests(for: scenario, seed: 99)) != corruptGolden.trafficDigest)
        // The recorded files are the committed ones' equals: a run against them passes.
        for path in [crisis, corrupt] {
            let verdict = try await InProcessRun.verdict(
                path,
                options: { [golden] in $0.reports.goldenDirectory = golden }
            )
            #expect(InProcessRun.failures(verdict, latency: false) == [], "\(verdict.scenario)")
        }
    }

    @Test func aMissingGoldenFileIsAnInputError() async throws {
        let nowhere = directory + "/nowhere"
        let error = try await InProcessRun.unjudged(crisis, options: { $0.reports.goldenDirectory = nowhere })
        #expect(
            error?.contains("no golden file") == true && error?.contains("vitalsim record") == true,
            "\(error ?? "judged")"
        )
        #expect(!FileManager.default.fileExists(atPath: nowhere), "CI never writes golden files")
    }

    @Test func aBrokenGoldenFileIsAnInputErrorNamingLineAndField() async throws {
        try FileManager.default.createDirectory(atPath: golden, withIntermediateDirectories: true)
        let committed = try String(
            contentsOfFile: Fixtures.repositoryRoot + "/golden/hypertensive-crisis.golden.yaml",
            encoding: .utf8
        )
        let broken = committed.replacingOccurrences(of: "severity: high", with: "severity: urgent")
        #expect(broken != committed)
        try broken.write(toFile: golden + "/hypertensive-crisis.golden.yaml", atomically: true, encoding: .utf8)
        let error = try await InProcessRun.unjudged(
            crisis,
            options: { [golden] in $0.reports.goldenDirectory = golden }
        )
        #expect(
            error?.contains("hypertensive-crisis.golden.yaml:") == true
                && error?.contains("alerts[0].severity") == true,
            "\(error ?? "judged")"
        )
    }
}
