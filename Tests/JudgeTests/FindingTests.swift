import Foundation
import FoundationXML
import Histogram
import Judge
import RunRecord
import Traffic
import VitalSimCore

#if canImport(FoundationXML)
import XCTest
#endif

/// Every finding of the judge, on constructed golden files and run results (no process, no SUT).
final class FindingTests: XCTestCase {
    /// 2024-11-07T10:00:00Z.
    let t0: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    func golden(alerts: [GoldenFile.ExpectedAlert] = [], validation: [GoldenFile.ExpectedValidation] = []) -> GoldenFile
    {
        JudgeFixtures.golden(alerts: alerts, validation: validation)
    }

    func expected(
        _ rule: String = "temp.fever",
        patient: String = "1",
        at t: Int64,
        severity: Severity = .medium
    ) -> GoldenFile.ExpectedAlert {
        GoldenFile.ExpectedAlert(
            patientID: patient,
            rule: rule,
            severity: severity,
            from: t - minute,
            to: t + 5 * minute
        )
    }

    func observed(
        _ id: String,
        _ rule: String = "temp.fever",
        patient: String = "1",
        at t: Int64,
        severity: String = "medium"
    )
        -> ObservedAlert
    {
        ObservedAlert(
            alertID: id,
            patientID: patient,
            rule: rule,
            severity: severity,
            raisedAt: t,
            evidence: ["\(patient)/d/1"]
        )
    }

    func histogram(_ samples: [UInt64] = [1000]) -> Histogram<UInt64> { JudgeFixtures.histogram(samples) }

    func result(_ alerts: [ObservedAlert], outcomes: [RequestOutcome] = []) -> RunObservation {
        JudgeFixtures.result(alerts, outcomes: outcomes)
    }

    func request(_ reading: String, rejection: ExpectedRejection? = nil) -> SentRequest {
        SentRequest(
            PlannedRequest(
                path: "/api/v1/observations",
                body: [],
                readings: [(reading, 0)],
                patientID: "1",
                sendAt: 0,
                expectedRejection: rejection
            )
        )
    }

    func judge(
        _ goldenFile: GoldenFile,
        _ liveRunResult: RunObservation,
        plan: [SentRequest] = [],
        digest: String = "sha256:x"
    ) -> Verdict {
        Verdict(scenario: "s", golden: goldenFile, plan: plan, digest: digest, result: liveRunResult)
    }

    func finding(_ verdict: Verdict, _ kind: CheckKind) -> [Finding?] {
        verdict.checks.filter { $0.kind == kind }.map(\.finding)
    }

    func testAnAlertInItsWindowWithItsSeverityPasses() {
        let verdict = judge(golden(alerts: [expected(at: t0)]), result([observed("a1", at: t0 + minute)]))
        XCTAssertTrue(verdict.passed, verdict.checks.map(\.detail).joined(separator: "; "))
        XCTAssertEqual(verdict.checks.map(\.kind), [.alert, .noOtherAlerts, .delivery])
    }

    func testMissedLateEarlyAndWrongSeverity() {
        XCTAssertEqual(finding(judge(golden(alerts: [expected(at: t0)]), result([])), .alert), [.missed])
        XCTAssertEqual(
            finding(judge(golden(alerts: [expected(at: t0)]), result([observed("a", at: t0 + 6 * minute)])), .alert),
            [.late]
        )
        XCTAssertEqual(
            finding(judge(golden(alerts: [expected(at: t0)]), result([observed("a", at: t0 - 2 * minute)])), .alert),
            [.early]
        )
        let wrong = judge(golden(alerts: [expected(at: t0)]), result([observed("a", at: t0, severity: "high")]))
        XCTAssertEqual(finding(wrong, .alert), [.wrongSeverity])
        XCTAssertTrue(wrong.checks[0].detail.contains("severity high, expected medium"), wrong.checks[0].detail)
    }

    func testAnotherRuleOrPatientIsNotAMatch() {
        let verdict = judge(
            golden(alerts: [expected(at: t0)]),
            result([observed("a", "hr.tachycardia", at: t0), observed("b", patient: "2", at: t0)])
        )
        XCTAssertEqual(finding(verdict, .alert), [.missed])
        XCTAssertEqual(finding(verdict, .noOtherAlerts), [.spurious, .spurious], "one check per unexpected alert")
    }

    func testExtraAlertsAreSpuriousOrDuplicates() {
        let spurious = judge(golden(), result([observed("a", at: t0)]))
        XCTAssertEqual(finding(spurious, .noOtherAlerts), [.spurious])
        XCTAssertEqual(
            spurious.checks.first { $0.kind == .noOtherAlerts }!.name,
            "unexpected alert temp.fever patient 1"
        )
        // A flapping rule is one check, however many alerts it raises, counted with first and last.
        let flapping = judge(golden(), result((0..<121).map { observed("f\($0)", at: t0 + Int64($0) * minute) }))
        let flaps = flapping.checks.filter { $0.kind == .noOtherAlerts }
        XCTAssertEqual(flaps.map(\.name), ["unexpected alert temp.fever patient 1"])
        XCTAssertTrue(flaps[0].detail.hasPrefix("121 alert(s)"), flaps[0].detail)
        XCTAssertTrue(flaps[0].detail.contains("last: alert f120 at 2024-11-07T12:00:00.000Z"), flaps[0].detail)
        let duplicate = judge(
            golden(alerts: [expected(at: t0)]),
            result([observed("a", at: t0), observed("b", at: t0 + minute)])
        )
        XCTAssertEqual(finding(duplicate, .alert), [nil])
        XCTAssertEqual(finding(duplicate, .noOtherAlerts), [.duplicate])
    }

    func testTwoExpectationsOfOneRuleAreNamedApart() {
        let goldenFile = golden(alerts: [expected(at: t0), expected(at: t0 + 60 * minute)])
        let verdict = judge(goldenFile, result([observed("a", at: t0), observed("b", at: t0 + 60 * minute)]))
        XCTAssertEqual(
            verdict.checks.filter { $0.kind == .alert }.map(\.name),
            ["alert temp.fever patient 1", "alert temp.fever patient 1 #2"]
        )
        XCTAssertTrue(verdict.passed)
    }

    func testAChangedTrafficDigestFails() {
        let verdict = judge(golden(), result([]), digest: "sha256:y")
        XCTAssertEqual(finding(verdict, .traffic), [.trafficChanged])
        XCTAssertFalse(verdict.passed)
    }

    func testValidationExpectedRejectionsAndUnexpectedOnes() {
        let goldenFile = golden(validation: [
            GoldenFile.ExpectedValidation(reading: "1/d/2", status: 400, field: "unit")
        ])
        let plan = [request("1/d/1"), request("1/d/2", rejection: ExpectedRejection(status: 400, field: "unit"))]
        let right = judge(
            goldenFile,
            result([], outcomes: [RequestOutcome(status: 200), RequestOutcome(status: 400, field: "unit")]),
            plan: plan
        )
        XCTAssertEqual(finding(right, .validation), [nil])
        XCTAssertEqual(right.acknowledged, 1)
        XCTAssertEqual(right.rejected, 1)
        let accepted = judge(
            goldenFile,
            result([], outcomes: [RequestOutcome(status: 200), RequestOutcome(status: 200)]),
            plan: plan
        )
        XCTAssertEqual(finding(accepted, .validation), [.validationMismatch])
        let wrongField = judge(
            goldenFile,
            result([], outcomes: [RequestOutcome(status: 200), RequestOutcome(status: 400, field: "value")]),
            plan: plan
        )
        // The status was right: only the field naming, a SHOULD, fails.
        XCTAssertEqual(finding(wrongField, .validation), [nil])
        XCTAssertEqual(finding(wrongField, .refusedField), [.validationMismatch])
        let fieldCheck = wrongField.checks.first { $0.kind == .refusedField }!
        XCTAssertEqual(fieldCheck.name, "rejects 1/d/2 naming its field")
        XCTAssertEqual(fieldCheck.level, .should)
        XCTAssertEqual(fieldCheck.detail, "the refusal names 'value', expected 'unit'")
        XCTAssertTrue(wrongField.passed == false, "an ungated verdict still shows the finding")
        let refused = judge(
            goldenFile,
            result([], outcomes: [RequestOutcome(status: 403), RequestOutcome(status: 400, field: "unit")]),
            plan: plan
        )
        let accepts = refused.checks.first { $0.name == "accepts 1/d" }
        XCTAssertEqual(accepts?.finding, .validationMismatch, "one check per device, named without a reading position")
        XCTAssertEqual(accepts?.detail, "1 valid request(s) refused; first: 1/d/1 with 403")
        let gone = judge(goldenFile, result([], outcomes: [RequestOutcome(status: 200)]), plan: [request("1/d/1")])
        XCTAssertEqual(
            gone.checks.first { $0.name == "rejects 1/d/2" }?.detail,
            "the scenario no longer sends reading 1/d/2"
        )
    }

    func testARequestWithoutAFinalAnswerIsUnanswered() {
        let plan = [request("1/d/1"), request("1/d/2")]
        let verdict = judge(
            golden(),
            result([], outcomes: [RequestOutcome(status: 200), RequestOutcome(error: "timed out", attempts: 6)]),
            plan: plan
        )
        let delivery = verdict.checks.first { $0.name == "every reading acknowledged or rejected" }
        XCTAssertEqual(delivery?.finding, .unanswered)
        XCTAssertEqual(
            delivery?.detail,
            "1 request(s) the SUT never answered (no response, or 5xx after every retry), first: 1/d/2: timed out; whether their readings were kept is for the stored-data checks to say"
        )
        XCTAssertEqual(verdict.failed, 1)
        let overloaded = judge(
            golden(),
            result([], outcomes: [RequestOutcome(status: 200), RequestOutcome(status: 503)]),
            plan: plan
        )
        XCTAssertEqual(
            overloaded.checks.first { $0.kind == .delivery }?.finding,
            .unanswered,
            "a final 5xx is not an answer"
        )
    }

    func testBudgetsPassAndFailOnTheirPercentile() {
        var goldenFile = golden()
        goldenFile.budgets = [GoldenFile.Budget(path: .readingToAck, limits: [(50, 2), (100, 5)])]
        var observation = result([])
        observation.traffic.ackLatency = histogram([1000, 1000, 1000, 9000])
        let verdict = judge(goldenFile, observation)
        XCTAssertEqual(
            verdict.checks.filter { $0.kind == .budget }.map(\.name),
            ["budget reading-to-ack p50 ≤ 2 ms", "budget reading-to-ack max ≤ 5 ms"]
        )
        XCTAssertEqual(finding(verdict, .budget), [nil, .budgetExceeded])
    }

    func testLatencyPathsAreReportedInOrder() {
        var observation = result([])
        var push = PushDelivery(kind: .webhook)
        push.latency = histogram()
        observation.alerts.push = [push, PushDelivery(kind: .sse)]
        let verdict = judge(golden(), observation)
        XCTAssertEqual(
            verdict.latencyPaths,
            [.readingToAck, .readingToAlert, .readingToAlertSSE, .readingToAlertWebhook, .schedulingLag]
        )
        XCTAssertEqual(LatencyPath.alert(via: .mqtt), .readingToAlertMQTT)
        XCTAssertEqual(LatencyPath.readingToAlertMQTT.channel, .mqtt)
        XCTAssertFalse(LatencyPath.budgetable.contains(.schedulingLag))
    }

    func testRecordingKeepsAlertsAndRejectionsAndWarnsAboutDepartures() {
        let plan = [request("1/d/1", rejection: ExpectedRejection(status: 400, field: "unit")), request("1/d/2")]
        let observation = result(
            [observed("a", at: t0), observed("b", at: t0, severity: "urgent")],
            outcomes: [RequestOutcome(status: 200), RequestOutcome(status: 422, field: "value")]
        )
        let (recorded, warnings) = GoldenFile.recorded(
            scenario: "s",
            seed: 7,
            digest: "sha256:z",
            plan: plan,
            result: observation,
            oracle: []
        )
        XCTAssertEqual(recorded.alerts.map(\.severity), [.medium], "an alert with an unknown severity is not recorded")
        XCTAssertEqual(recorded.alerts.first.map { $0.to - $0.from }, GoldenFile.defaultEarly + GoldenFile.defaultLate)
        XCTAssertEqual(
            recorded.validation,
            [GoldenFile.ExpectedValidation(reading: "1/d/2", status: 422, field: "value")]
        )
        XCTAssertEqual(recorded.budgets.map(\.path), [.readingToAck, .readingToAlert])
        XCTAssertTrue(warnings.contains { $0.contains("severity 'urgent'") }, "\(warnings)")
        XCTAssertTrue(
            warnings.contains { $0.hasPrefix("1/d/1: a conforming SUT answers 400 naming 'unit'") },
            "\(warnings)"
        )
        let again = try? GoldenFile.parse(recorded.yaml(), file: "s.golden.yaml")
        XCTAssertEqual(again, recorded, "a recorded golden file parses back to itself")
    }

    func testGoldenFileErrorsNameTheLineAndField() {
        let text = """
            scenario: "s"
            seed: 1
            trafficDigest: "sha256:x"
            alerts:
              - {patient: "1", rule: "temp.fever", severity: severe, from: "2024-11-07T10:00:00.000Z", to: "2024-11-07T10:10:00.000Z"}
            budgets:
              reading-to-ack: {p50: soon}
            """
        XCTAssertThrowsError(try GoldenFile.parse(text, file: "g.yaml")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("g.yaml:5"), message)
            XCTAssertTrue(message.contains("severity must be low, medium or high"), message)
            XCTAssertTrue(message.contains("g.yaml:7"), message)
            XCTAssertTrue(message.contains("expected a duration"), message)
        }
    }

    func testJUnitIsWellFormedXMLWithOneCasePerCheck() throws {
        let verdict = judge(golden(alerts: [expected(at: t0)]), result([observed("a<&>\"", at: t0 + 6 * minute)]))
        let xml = RunReport([verdict]).junit
        let parser = XMLParser(data: Data(xml.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")\n\(xml)")
        XCTAssertEqual(counter.counts["testcase"], verdict.checks.count)
        XCTAssertEqual(counter.counts["failure"], verdict.checks.filter { !$0.passed }.count)
        let json = try JSONSerialization.jsonObject(with: Data(RunReport([verdict]).json.utf8)) as? [String: Any]
        XCTAssertEqual(json?["passed"] as? Bool, false)
    }
}

/// Counts XML elements by name.
final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        counts[elementName, default: 0] += 1
    }
}
