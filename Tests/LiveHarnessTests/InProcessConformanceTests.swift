import Foundation
import InProcessSUT
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import TestFixtures
import Testing
import VitalSimCore

/// A conformance statement that claims some reading kinds: readings of the others are not sent,
/// their checks are skipped or not applicable, and the run passes its gate. In-process against the
/// reference SUT.
final class InProcessConformanceTests {
    let directory = Fixtures.temporaryDirectory("in-process-conformance")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func readingsOfUnclaimedKindsAreNotSentAndTheirChecksAreNotFailed() async throws {
        let kinds = VitalKind.allCases.filter { $0 != .battery && $0 != .cuffPressure }.map(\.rawValue)
        let rules = Oracle.derivedRuleIDs.filter { $0 != "device.low-battery" }
        let noBattery = try InProcessRun.profile(
            """
            name: no-battery
            conformance:
              kinds: [\(kinds.joined(separator: ", "))]
              rules: [\(rules.joined(separator: ", "))]
            """,
            name: "no-battery.yaml",
            in: directory
        )
        #expect(noBattery.conformance.kinds?.contains("battery") == false)
        let verdict = try await InProcessRun.verdict(
            InProcessRun.path("boundaries", "copd-infant-thresholds"),
            options: { $0.target.profile = noBattery }
        )
        #expect(verdict.error == nil)
        let withheld = verdict.checks.first { $0.name == "readings of unclaimed kinds" }
        #expect(withheld?.skipped == true)
        #expect(withheld?.detail.contains("reading(s) not sent") == true, "\(withheld?.detail ?? "")")
        // Ungated, the battery alert is missed; the statement makes it not applicable.
        #expect(InProcessRun.failures(verdict, latency: false) == ["missed alert device.low-battery patient battery"])
        var gate = GatePolicy(today: "2026-11-27")
        gate.conformance = noBattery.conformance
        let gated = gate.apply([verdict]).verdicts[0]
        #expect(gated.checks.filter { $0.kind != .budget }.allSatisfy { $0.passed })
        let battery = gated.checks.first { $0.name == "alert device.low-battery patient battery" }
        #expect(
            battery?.excuse
                == .notApplicable(reason: "the conformance statement does not claim rule device.low-battery")
        )
    }

    @Test func anUnknownKindIsALoadError() {
        #expect {
            try InProcessRun.profile(
                "name: typo\nconformance:\n  kinds: [heart-rate, batery]\n",
                name: "typo.yaml",
                in: directory
            )
        } throws: { error in
            "\(error)".contains("typo.yaml:3") && "\(error)".contains("conformance.kinds[1]")
        }
    }
}
