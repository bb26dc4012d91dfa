import Foundation
import Judge
import RunRecord
import Testing
import Traffic
import VitalSimCore

/// Each check of a verdict names the requirements it verifies (docs/requirements.md): from its kind,
/// its rule, and the kinds of the readings the run sent; reports carry the ids.
@Suite struct RequirementTraceTests {
    let t0: Int64 = 1_730_973_600_000

    func request(_ reading: String, device: String, kind: VitalKind, rejection: ExpectedRejection? = nil) -> SentRequest
    {
        SentRequest(
            PlannedRequest(
                path: "/api/healthkit",
                body: [],
                readings: [(reading, 0)],
                patientID: "501",
                sendAt: 0,
                expectedRejection: rejection,
                deviceID: device,
                kind: kind
            )
        )
    }

    func judged() -> Verdict {
        let golden = JudgeFixtures.golden(
            alerts: [
                GoldenFile.ExpectedAlert(
                    patientID: "501",
                    rule: "hr.tachycardia",
                    severity: .medium,
                    from: t0,
                    to: t0 + 1
                )
            ],
            validation: [
                .init(reading: "501/phone-501/daily-summary/0", status: 400, field: "stepCount"),
                .init(reading: "501/phone-501/7", status: 400, field: "heartRate"),
            ]
        )
        let plan = [
            request("501/phone-501/daily-summary/0", device: "phone-501", kind: .dailySummary),
            request("501/phone-501/7", device: "phone-501", kind: .heartRate),
            request("501/phone-501/8", device: "phone-501", kind: .heartRate),
        ]
        // The summary refused as expected, the heart rate accepted though corrupt, the valid one refused.
        let outcomes = [
            RequestOutcome(status: 400, field: "stepCount"), RequestOutcome(status: 200),
            RequestOutcome(status: 400, field: "heartRate"),
        ]
        let result = JudgeFixtures.result([], outcomes: outcomes)
        return Verdict(scenario: "s", golden: golden, plan: plan, digest: "sha256:x", result: result)
    }

    func ids(_ verdict: Verdict, _ name: String) -> [String]? {
        verdict.checks.first { $0.name == name }?.requirements
    }

    @Test func everyCheckNamesTheRequirementsItVerifies() {
        let verdict = judged()
        #expect(
            verdict.checks.allSatisfy { !$0.requirements.isEmpty },
            "\(verdict.checks.filter { $0.requirements.isEmpty }.map(\.name))"
        )
        #expect(ids(verdict, "alert hr.tachycardia patient 501") == ["rule.hr.tachycardia", "alerts.raised"])
        #expect(ids(verdict, "rejects 501/phone-501/daily-summary/0") == ["ingest.daily-summary.refuse"])
        #expect(
            ids(verdict, "rejects 501/phone-501/daily-summary/0 naming its field")
                == ["ingest.daily-summary.refuse", "ingest.refusal-names-field"]
        )
        #expect(ids(verdict, "rejects 501/phone-501/7") == ["ingest.heart-rate.refuse"])
        // A device's acceptance: every kind it sent, in the catalogue's order of kinds.
        #expect(ids(verdict, "accepts 501/phone-501") == ["ingest.heart-rate.accept", "ingest.daily-summary.accept"])
        #expect(ids(verdict, "every reading acknowledged or rejected") == ["ingest.answered"])
    }

    @Test func namesWithoutAKnownReadingFallBackToTheirOwnWords() {
        let none: (String) -> [VitalKind] = { _ in [] }
        func ids(_ kind: CheckKind, _ name: String, rule: String? = nil) -> [String] {
            let check = Check(kind: kind, name: name, rule: rule, finding: nil, detail: "").stamped()
            return ConformanceRegistry.standard.requirements(of: check, kinds: none)
        }
        #expect(ids(.validation, "rejects 1/d/cgm/4") == ["ingest.cgm.refuse"], "the kind an id names")
        #expect(ids(.validation, "rejects 1/d/4") == ["ingest.any.refuse"])
        #expect(
            ids(.validation, "accepts 1/d/daily-summary") == ["ingest.daily-summary.accept"],
            "a secondary kind's group"
        )
        #expect(
            ids(.noOtherAlerts, "duplicate alert temp.fever patient 1 #2", rule: "temp.fever") == [
                "rule.temp.fever", "alerts.once-per-episode",
            ]
        )
        #expect(
            ids(.noOtherAlerts, "unexpected alert spo2.low patient 3", rule: "spo2.low") == [
                "rule.spo2.low", "alerts.no-spurious",
            ]
        )
        #expect(ids(.budget, "budget reading-to-alert-sse p99 ≤ 1000 ms") == ["alerts.latency", "alerts.pushed"])
        #expect(ids(.budget, "budget reading-to-ack max ≤ 5000 ms") == ["ingest.ack-latency"])
        #expect(
            ids(.storedData, "stored reading counts of patient 1 per day and month") == [
                "query.by-day", "query.by-month",
            ]
        )
        #expect(ids(.storedData, "stored readings of patient 1 held once") == ["store.once"])
        #expect(ids(.delivery, "every MQTT reading reached the SUT") == ["ingest.answered", "ingest.mqtt-confirmed"])
    }

    @Test func reportsCarryTheIds() throws {
        let verdict = judged()
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(RunReport([verdict]).json.utf8)) as? [String: Any]
        )
        let checks = try #require((json["scenarios"] as? [[String: Any]])?.first?["checks"] as? [[String: Any]])
        let summary = try #require(checks.first { $0["name"] as? String == "rejects 501/phone-501/daily-summary/0" })
        #expect(summary["requirements"] as? [String] == ["ingest.daily-summary.refuse"])
        let junit = RunReport([verdict]).junit
        #expect(junit.contains(#"<property name="requirement" value="ingest.heart-rate.refuse"/>"#))
        // On failure the console says what the failed check verifies.
        let console = RunReport([verdict]).console(colour: false)
        #expect(console.contains("validation-mismatch rejects 501/phone-501/7:"), "\(console)")
        #expect(console.contains("    verifies ingest.heart-rate.refuse\n"), "\(console)")
    }
}
