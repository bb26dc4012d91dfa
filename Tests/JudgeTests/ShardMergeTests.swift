import Foundation
import Histogram
import Judge
import RunRecord
import Traffic
import VitalSimCore
import XCTest

/// A scenario judged whole and judged in two shards (one patient each), the shards' verdicts written
/// to result files, read back and merged: the merged verdict is the whole one, check for check.
final class ShardMergeTests: XCTestCase {
    /// 2024-11-07T10:00:00Z.
    let t0: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    var golden: GoldenFile {
        var goldenFile = JudgeFixtures.golden(
            alerts: [
                expected("1", at: t0), expected("2", at: t0 + minute), expected("2", at: t0 + 60 * minute),
            ],
            validation: [
                GoldenFile.ExpectedValidation(reading: "1/d1/3", status: 400, field: "unit"),
                GoldenFile.ExpectedValidation(reading: "2/d2/7", status: 400, field: "unit"),
            ]
        )
        goldenFile.budgets = [
            GoldenFile.Budget(path: .readingToAck, limits: [(99, 2), (100, 50)]),
            GoldenFile.Budget(path: .readingToAlert, limits: [(50, 1)]),
        ]
        return goldenFile
    }

    func expected(_ patient: String, at t: Int64) -> GoldenFile.ExpectedAlert {
        GoldenFile.ExpectedAlert(
            patientID: patient,
            rule: "hr.tachycardia",
            severity: .high,
            from: t - minute,
            to: t + 5 * minute
        )
    }

    func alert(_ id: String, _ patient: String, at t: Int64, rule: String = "hr.tachycardia") -> ObservedAlert {
        ObservedAlert(
            alertID: id,
            patientID: patient,
            rule: rule,
            severity: "high",
            raisedAt: t,
            evidence: ["\(patient)/d\(patient)/1"]
        )
    }

    /// Requests of patient 1 (readings 1…4) and patient 2 (5…8), interleaved in time.
    func plan(_ patients: Set<String>) -> [SentRequest] {
        var out: [SentRequest] = []
        for slot in 0..<4 {
            for (p, n) in [("1", slot + 1), ("2", slot + 5)] where patients.contains(p) {
                let planned = PlannedRequest(
                    path: "/api/v1/observations",
                    body: [],
                    readings: [("\(p)/d\(p)/\(n)", Int64(slot) * 1000)],
                    patientID: p,
                    sendAt: Int64(slot) * 1000,
                    expectedRejection: nil,
                    deviceID: "d\(p)"
                )
                out.append(SentRequest(planned))
            }
        }
        return out
    }

    /// What the SUT answered each reading: 1/d1/3 refused as expected, 2/d2/7 accepted though it should
    /// not be, 2/d2/8 never answered, 1/d1/2 answered after a retry.
    func outcome(_ sentRequest: SentRequest) -> RequestOutcome {
        switch sentRequest.firstReading {
        case "1/d1/3": RequestOutcome(status: 400, field: "unit", attempts: 1, httpVersion: "1.1")
        case "2/d2/8": RequestOutcome(error: "timeout", attempts: 3)
        case "1/d1/2": RequestOutcome(status: 200, attempts: 2, waited: 1.5, httpVersion: "1.1")
        default: RequestOutcome(status: 200, attempts: 1, httpVersion: "1.1")
        }
    }

    /// Alerts of patient 1 (one expected, one spurious, and one of a patient the scenario does not
    /// have, which the shard of its first patient judges) and of patient 2 (one of two expected).
    func alerts(_ patients: Set<String>) -> [ObservedAlert] {
        var out: [ObservedAlert] = []
        if patients.contains("1") {
            out += [
                alert("a1", "1", at: t0), alert("a3", "1", at: t0 + 30 * minute, rule: "bp.stage2"),
                alert("a4", "9", at: t0),
            ]
        }
        if patients.contains("2") { out.append(alert("a2", "2", at: t0 + minute)) }
        return out
    }

    func result(_ patients: Set<String>) -> RunObservation {
        let plan = plan(patients)
        let ack: [UInt64] = patients.contains("1") ? [800, 900, 1500, 40_000] : [700, 3000, 3100, 2000]
        var liveRunResult = RunObservation(
            traffic: TrafficObservation(
                outcomes: plan.map(outcome),
                ackLatency: JudgeFixtures.histogram(patients.contains("1") ? ack + [700, 3000, 3100, 2000] : ack),
                schedulingLag: JudgeFixtures.histogram(Array(repeating: 5, count: plan.count)),
                unreachable: false
            ),
            alerts: AlertObservation(
                observed: alerts(patients),
                latency: JudgeFixtures.histogram(patients.contains("1") ? [900, 1200] : [])
            )
        )
        var sse = PushDelivery(kind: .sse)
        for a in liveRunResult.alerts.observed where a.alertID != "a4" { sse.delivered.insert(a.alertID) }
        sse.repeats = patients.contains("2") ? 2 : 0
        liveRunResult.alerts.push = [sse]
        var mqtt = MQTTDelivery()
        mqtt.acknowledged = patients.count * 3
        mqtt.sutConfirms = true
        mqtt.confirmed = patients.count * 3 - (patients.contains("2") ? 1 : 0)
        mqtt.unconfirmedCount = patients.contains("2") ? 1 : 0
        mqtt.unconfirmed = patients.contains("2") ? ["2/d2/9"] : []
        liveRunResult.traffic.mqtt = mqtt
        liveRunResult.alerts.wait = "not listed within 31 s after the last reading was answered"
        liveRunResult.alerts.pollResolution = patients.contains("2") ? .milliseconds(320) : .milliseconds(50)
        return liveRunResult
    }

    /// One shard's verdict, through its result file and back.
    func shard(_ patients: Set<String>, contract: SUTContract = SUTContract()) throws -> Verdict {
        try XCTUnwrap(try resultFile(1, patients, contract: contract).result.scenarios[0].verdict)
            .verdict(scenario: "s")
    }

    /// A shard's result: its patients' requests and alerts (the whole run's `result` with both).
    func partResult(_ patients: Set<String>) -> RunObservation {
        var observation = result(patients)
        if patients == ["1", "2"] { return observation }
        observation.traffic.ackLatency = JudgeFixtures.histogram(
            patients.contains("1") ? [800, 900, 1500, 40_000] : [700, 3000, 3100, 2000]
        )
        return observation
    }

    func summary(_ verdict: Verdict) -> [String] {
        verdict.checks.map {
            "\($0.kind.rawValue) | \($0.name) | \($0.finding?.rawValue ?? "pass") | \($0.skipped) | \($0.detail)"
        }
    }

    func testTwoShardsMergeIntoTheWholeVerdict() throws {
        let whole = Verdict(
            scenario: "s",
            golden: golden,
            plan: plan(["1", "2"]),
            digest: "sha256:x",
            result: result(["1", "2"])
        )
        let merged = Verdict(merging: [try shard(["1"]), try shard(["2"])], golden: golden, scenario: "s")
        XCTAssertEqual(summary(merged), summary(whole))
        XCTAssertEqual(
            [merged.acknowledged, merged.rejected, merged.failed],
            [whole.acknowledged, whole.rejected, whole.failed]
        )
        XCTAssertEqual(merged.httpVersions, whole.httpVersions)
        XCTAssertEqual(merged.latency[.readingToAck], whole.latency[.readingToAck])
        XCTAssertEqual(merged.latency[.schedulingLag], whole.latency[.schedulingLag])
        XCTAssertEqual(merged.histograms[.readingToAck], whole.histograms[.readingToAck])
        // How finely reading → alert is known: the longest of the shards' poll cycles, through their result files.
        XCTAssertEqual(try shard(["1"]).merging.alertPollCycle, 50)
        XCTAssertEqual(merged.merging.alertPollCycle, 320)
        XCTAssertEqual(whole.merging.alertPollCycle, 320)
        // The judge found something of every kind here, so no check kind is merged untested.
        let findings = Set(whole.checks.compactMap(\.finding))
        XCTAssertEqual(findings, [.missed, .spurious, .validationMismatch, .unanswered, .lost, .budgetExceeded])
        XCTAssertEqual(whole.checks.filter { $0.kind == .delivery }.count, 3)
    }

    func testAShardWithoutSamplesSkipsABudgetTheMergeJudges() throws {
        let second = try shard(["2"])
        let budget = second.checks.first { $0.name == "budget reading-to-alert p50 ≤ 1 ms" }
        XCTAssertEqual(budget?.skipped, true)
        XCTAssertEqual(budget?.passed, true)
        let merged = Verdict(merging: [try shard(["1"]), second], golden: golden, scenario: "s")
        let judged = merged.checks.first { $0.name == "budget reading-to-alert p50 ≤ 1 ms" }
        XCTAssertEqual(judged?.skipped, false)
        XCTAssertEqual(judged?.detail, "0.90 ms over 2 samples")
    }

    /// Shards reading one alert source for every patient (an event stream) each leave out the other
    /// shards' alerts: the merged run's "outside" are only the alerts no shard read as its own, each
    /// once, through the result files.
    func testAlertsLeftOutByOneShardButReadByAnotherAreNotOutsideTheMergedRun() throws {
        let own1 = try shard(["1"]).alerts.map(\.alertID)
        let own2 = try shard(["2"]).alerts.map(\.alertID)
        XCTAssertFalse(own1.isEmpty || own2.isEmpty)
        func contract(_ outside: [String]) -> SUTContract {
            var contract = SUTContract()
            contract.outsideRun = outside.count
            contract.outsideAlertIDs = outside.sorted()
            return contract
        }
        let first = try shard(["1"], contract: contract(own2 + ["foreign-a"]))
        let second = try shard(["2"], contract: contract(own1 + ["foreign-a", "foreign-b"]))
        XCTAssertEqual(first.contract?.outsideAlertIDs, (own2 + ["foreign-a"]).sorted(), "kept in the result file")
        let merged = Verdict(merging: [first, second], golden: golden, scenario: "s")
        XCTAssertEqual(merged.contract?.outsideRun, 2)
        XCTAssertTrue(
            merged.contract?.alertSummary.contains("2 alert(s) of patients outside the run left out") ?? false,
            merged.contract?.alertSummary ?? "no contract"
        )
        // Results written before the ids were kept are summed as before.
        var old = contract(["x"])
        old.outsideAlertIDs = nil
        let summed = Verdict(merging: [first, try shard(["2"], contract: old)], golden: golden, scenario: "s")
        XCTAssertEqual(summed.contract?.outsideRun, own2.count + 2)
    }

    func testAPartThatCouldNotBeJudgedMakesTheWholeAnError() throws {
        let failed = Verdict(
            scenario: "s",
            error: "the SUT at https://127.0.0.1:1 did not answer",
            contract: SUTContract()
        )
        let merged = Verdict(merging: [try shard(["1"]), failed], golden: golden, scenario: "s")
        XCTAssertEqual(merged.error, "the SUT at https://127.0.0.1:1 did not answer")
        XCTAssertFalse(merged.passed)
    }

    /// A scenario one shard could not judge is an error in the merged list, and the scenario after
    /// it is still merged from both shards' verdicts.
    func testTheMergeGoesOnAfterAScenarioThatCouldNotBeJudged() throws {
        var shards = [try resultFile(1, ["1"]), try resultFile(2, ["2"])]
        for i in shards.indices {
            var next = shards[i].result.scenarios[0]
            next.scenario = "t"
            next.path = "t.yaml"
            shards[i].result.scenarios.append(next)
        }
        let failed = Verdict(scenario: "s", error: "the SUT at https://127.0.0.1:1 did not answer", contract: nil)
        shards[1].result.scenarios[0].verdict = VerdictRecord(failed)
        shards[1].result.scenarios[0].requests = nil
        let merged = try ShardMerge.merge(shards)
        XCTAssertEqual(merged.map(\.scenario), ["s", "t"])
        XCTAssertEqual(merged[0].error, "the SUT at https://127.0.0.1:1 did not answer")
        XCTAssertNil(merged[1].error)
        XCTAssertFalse(merged[1].checks.isEmpty)
    }

    /// Shard `index` of two as its result file with its request list, read back.
    func resultFile(
        _ index: Int,
        _ patients: Set<String>,
        contract: SUTContract = SUTContract()
    ) throws -> (file: String, result: ShardResult) {
        var verdict = Verdict(
            scenario: "s",
            golden: golden.restricted(to: patients),
            plan: plan(patients),
            digest: patients.contains("1") ? "sha256:x" : nil,
            result: partResult(patients),
            partial: true
        )
        verdict.contract = contract
        var part = ShardResult.Part(
            scenario: "s",
            path: "s.yaml",
            patients: ["1", "2"],
            ran: patients.sorted(),
            goldenPath: "g",
            golden: golden.yaml()
        )
        part.verdict = VerdictRecord(verdict)
        part.digested = patients.contains("1")
        part.requests = zip(plan(patients), plan(patients).map(outcome)).map(SentOutcome.init)
        let file = ShardResult(shard: index, shards: 2, suite: "s.yaml", seed: nil, startAt: nil, scenarios: [part])
        return ("shard-\(index).json", try JSONDecoder().decode(ShardResult.self, from: file.json()))
    }

    func testTheMergedRequestListIsTheWholeRunsInItsOrder() throws {
        let shards = [try resultFile(2, ["2"]), try resultFile(1, ["1"])]
        XCTAssertNoThrow(try ShardMerge.merge(shards))
        let merged = ShardMerge.requests(shards)
        let whole = zip(plan(["1", "2"]), plan(["1", "2"]).map(outcome)).map(SentOutcome.init)
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged.first?.requests, whole)
        XCTAssertEqual(whole.map(\.readings), (0..<4).flatMap { [["1/d1/\($0 + 1)"], ["2/d2/\($0 + 5)"]] })
        XCTAssertEqual(whole.first { $0.readings == ["2/d2/8"] }?.fate, .failed)
    }

    func testAMergeRefusesRequestListsThatDoNotAddUp() throws {
        let first = try resultFile(1, ["1"])
        let second = try resultFile(2, ["2"])
        func refusal(_ change: (inout ShardResult.Part) -> Void) throws -> String {
            var tampered = second
            change(&tampered.result.scenarios[0])
            do {
                _ = try ShardMerge.merge([first, tampered])
                return "merged"
            } catch { return error.description }
        }
        // A shard that lost a request from its list: its verdict counts more than the list holds.
        XCTAssertEqual(
            try refusal { $0.requests?.removeLast() },
            "shard-2.json: s: its requests add up to 2 acknowledged, 0 rejected, 1 failed readings, its verdict counts 2, 0, 2: the file is damaged or incomplete"
        )
        // A reading of patient 1 sent by the shard of patient 2 as well.
        XCTAssertEqual(
            try refusal { $0.requests?[0].readings = ["1/d1/1"] },
            "s: reading 1/d1/1 was sent by two shards (shard-1.json and shard-2.json): a patient's traffic must come from one shard"
        )
        XCTAssertEqual(
            try refusal { $0.requests?[1].patient = "1" },
            "shard-2.json: s: lists a request of patient 1 (device d2, due at 1000 ms), who is not this shard's"
        )
        XCTAssertEqual(
            try refusal { $0.requests = nil },
            "shard-2.json: scenario s has patients of this shard but no verdict or no list of its requests"
        )
        for bad in ["2/d2/x", "2/d2/5+0", "2/d2/4294967295+2", "2/d2/5+2000000", "2/d2/5+1+1"] {
            XCTAssertEqual(
                try refusal { $0.requests?[0].readings = [bad] },
                "shard-2.json: not a shard result file (a sharded run's result): s, request 1: reading run '\(bad)' is not PREFIX/FIRST or PREFIX/FIRST+COUNT"
            )
        }
        XCTAssertEqual(try refusal { _ in }, "merged")
    }

    /// A person caring for patients of two parts has one audit check in the whole: failed when
    /// either part's failed, passed (not skipped) when one passed and the other was not read.
    /// The shard running a scenario's first patient digests the whole scenario's traffic, for every
    /// shard: a merge refuses results where no shard or another did, or of two vitalsim versions.
    func testAMergeRefusesResultsWithoutTheFirstPatientsDigest() throws {
        let first = try resultFile(1, ["1"])
        let second = try resultFile(2, ["2"])
        func refusal(_ change: (inout ShardResult, inout ShardResult) -> Void) -> String {
            var (a, b) = (first, second)
            change(&a.result, &b.result)
            do {
                _ = try ShardMerge.merge([a, b])
                return "merged"
            } catch { return error.description }
        }
        XCTAssertEqual(refusal { _, _ in }, "merged")
        let nobody = "s: the shard running its first patient computes the whole scenario's traffic digest, but "
        XCTAssertEqual(
            refusal { a, _ in a.scenarios[0].digested = false },
            nobody + "no shard did: the results are damaged or not of one vitalsim"
        )
        XCTAssertEqual(
            refusal { a, b in (a.scenarios[0].digested, b.scenarios[0].digested) = (false, true) },
            nobody + "shard-2.json did: the results are damaged or not of one vitalsim"
        )
        XCTAssertEqual(
            refusal { _, b in b.scenarios[0].digested = true },
            nobody + "shard-1.json and shard-2.json did: the results are damaged or not of one vitalsim"
        )
        XCTAssertEqual(
            refusal { _, b in b.version = "0.0.1" },
            "shard-2.json and shard-1.json are not shards of one run: their vitalsim versions differ (run every shard with the same suite, flags and golden files)"
        )
    }

    /// A result file of an older format is named as such, not as a file that does not decode.
    func testAResultOfAnotherFormatSaysWhichItIs() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("old-shard-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(#"{"format": "vitalsim-shard-result/3", "shard": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try ShardMerge.read(file)) { error in
            XCTAssertEqual(
                "\(error)",
                "\(file): format 'vitalsim-shard-result/3', expected 'vitalsim-shard-result/5' (write every shard with the same vitalsim)"
            )
        }
    }

    func testEachPersonsAuditCheckIsMergedIntoOne() {
        func part(_ checks: [Check]) -> Verdict { Verdict(scenario: "s", checks: checks.map { $0.stamped() }) }
        func merged(_ parts: [Verdict]) -> [Check] {
            var whole = Verdict(scenario: "s", checks: [])
            return AuditTrailArea().merged(parts, golden: golden, into: &whole)
        }
        let ok = Check(kind: .audit, name: "audit trail of caregiver ann", rule: nil, finding: nil, detail: "ok")
        var missing = ok
        (missing.finding, missing.detail) = (.auditMissing, "1 of 1 granted access(es) not recorded")
        var unread = ok
        unread.skipped = true
        let ben = Check(kind: .audit, name: "audit trail of caregiver ben", rule: nil, finding: nil, detail: "ok")
        let failed = merged([part([ok, ben]), part([missing])])
        XCTAssertEqual(failed.map(\.name), ["audit trail of caregiver ann", "audit trail of caregiver ben"])
        XCTAssertEqual(failed.map(\.finding), [.auditMissing, nil])
        let passed = merged([part([unread]), part([ok])])
        XCTAssertEqual(passed.map(\.skipped), [false])
    }

    /// The care team's checks survive a merge in the unsharded order: the actions by their time, then
    /// the recipients of each expected alert in the golden file's order, and a check both parts made
    /// alike once.
    func testCareActionAndRecipientChecksAreMergedInTheUnshardedOrder() {
        var goldenFile = golden
        goldenFile.alerts = [expected("2", at: t0), expected("1", at: t0 + minute), expected("1", at: t0 + 2 * minute)]
        func check(_ kind: CheckKind, _ name: String, _ finding: Finding? = nil) -> Check {
            Check(kind: kind, name: name, rule: "hr.tachycardia", finding: finding, detail: name).stamped()
        }
        var one = Verdict(
            scenario: "s",
            checks: [
                check(.careAction, "ann acknowledges hr.tachycardia patient 1"),
                check(.recipients, "notifies ann of hr.tachycardia patient 1"),
                check(.recipients, "escalates hr.tachycardia patient 1 #2 to bob after 300s", .missedEscalation),
                check(.recipients, "notifies nobody else of hr.tachycardia patient 1"),
            ]
        )
        one.merging.careActionTimes = ["ann acknowledges hr.tachycardia patient 1": 90_000]
        var two = Verdict(
            scenario: "s",
            checks: [
                check(.careAction, "cy dismisses hr.tachycardia patient 2"),
                check(.recipients, "does not notify dan of hr.tachycardia patient 2", .wrongRecipient),
            ]
        )
        two.merging.careActionTimes = ["cy dismisses hr.tachycardia patient 2": 30_000]
        let merged = Verdict(merging: [one, two], golden: goldenFile, scenario: "s").checks
        XCTAssertEqual(
            merged.filter { $0.kind == .careAction || $0.kind == .recipients }.map(\.name),
            [
                "cy dismisses hr.tachycardia patient 2", "ann acknowledges hr.tachycardia patient 1",
                "does not notify dan of hr.tachycardia patient 2", "notifies ann of hr.tachycardia patient 1",
                "notifies nobody else of hr.tachycardia patient 1",
                "escalates hr.tachycardia patient 1 #2 to bob after 300s",
            ]
        )
        XCTAssertFalse(Verdict(merging: [one, two], golden: goldenFile, scenario: "s").passed)
        let unread = check(.recipients, "alert recipients")
        var whole = Verdict(scenario: "s", checks: [])
        let once = RecipientsArea().merged(
            [Verdict(scenario: "s", checks: [unread]), Verdict(scenario: "s", checks: [unread])],
            golden: goldenFile,
            into: &whole
        )
        XCTAssertEqual(once.map(\.name), ["alert recipients"])
    }

    func testARunOfReadingsExpandsToEveryId() {
        let planned = PlannedRequest(
            path: "/api/v1/batch",
            body: [],
            readings: [("p/d/3", 0), ("p/d/4", 0), ("p/d/5", 0), ("p/e/1", 0), ("trace-x", 0)],
            patientID: "p",
            sendAt: 0,
            expectedRejection: nil
        )
        let sent = SentOutcome(SentRequest(planned), RequestOutcome(status: 202, attempts: 1))
        XCTAssertEqual(sent.readings, ["p/d/3+3", "p/e/1"])
        XCTAssertEqual(sent.others, ["trace-x"])
        XCTAssertEqual(sent.readingIDs, ["p/d/3", "p/d/4", "p/d/5", "p/e/1", "trace-x"])
        XCTAssertEqual(sent.readingCount, 5)
        XCTAssertEqual(sent.fate, .acknowledged)
    }
}
