import Foundation
import InProcessSUT
import Judge
import LiveHarness
import SUTAdapter
import TestFixtures
import Testing

/// One SUT rule that stands for two of VitalSim's by the patient's clinical profile: a backend's
/// single `LOW_SPO2` is `spo2.below-copd-target` for a COPD patient and `spo2.low` for the others.
/// In-process against the reference SUT, whose two rules the profile reads under that one name.
final class InProcessRuleMappingTests {
    let directory = Fixtures.temporaryDirectory("in-process-rule-mapping")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Every other rule under its own name.
    var identity: String {
        Oracle.derivedRuleIDs.filter { !$0.hasPrefix("spo2.") }.sorted().map { "  \($0): \($0)" }.joined(
            separator: "\n"
        )
    }

    func profile(byProfile: Bool) throws -> SUTProfile {
        let lowSpO2 =
            byProfile ? "  LOW_SPO2: {copd: spo2.below-copd-target, default: spo2.low}" : "  LOW_SPO2: spo2.low"
        return try InProcessRun.profile(
            """
            name: one-low-spo2
            alerts:
              url: /api/v1/alerts
              fields:
                id: /alertId
                patient: /patientId
                rule: {pointer: /rule, map: {spo2.low: LOW_SPO2, spo2.below-copd-target: LOW_SPO2}}
                severity: /severity
                raised-at: /raisedAt
                evidence: /evidence
            rules:
            \(lowSpO2)
            \(identity)
            """,
            name: "one-low-spo2-\(byProfile).yaml",
            in: directory
        )
    }

    @Test func oneSUTRuleMapsByThePatientsProfile() async throws {
        let mapped = try profile(byProfile: true)
        #expect(mapped.mapping.rulesByProfile["LOW_SPO2"] == ["copd": "spo2.below-copd-target", "default": "spo2.low"])
        for name in ["copd-infant-thresholds", "adult-thresholds"] {
            let verdict = try await InProcessRun.verdict(
                InProcessRun.path("boundaries", name),
                options: { $0.target.profile = mapped }
            )
            #expect(verdict.error == nil)
            #expect(InProcessRun.failures(verdict, latency: false) == [], "\(name)")
        }
        // One global mapping cannot be right for both: the COPD patient's alert reads as spo2.low.
        let global = try profile(byProfile: false)
        let wrong = try await InProcessRun.verdict(
            InProcessRun.path("boundaries", "copd-infant-thresholds"),
            options: { $0.target.profile = global }
        )
        let failures = InProcessRun.failures(wrong, latency: false)
        #expect(failures.contains("missed alert spo2.below-copd-target patient copd"), "\(failures)")
    }

    @Test func aProfileKeyThatIsNoProfileIsALoadError() {
        #expect {
            try InProcessRun.profile(
                "name: typo\nrules:\n  LOW_SPO2: {cpod: spo2.below-copd-target, default: spo2.lo}\n",
                name: "typo.yaml",
                in: directory
            )
        } throws: { error in
            let text = "\(error)"
            return text.contains("typo.yaml:3") && text.contains("'cpod' is not a VitalSim profile")
                && text.contains("'spo2.lo' is not a VitalSim rule id")
        }
    }
}
