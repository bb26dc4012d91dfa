import Foundation
import InProcessSUT
import Judge
import LiveHarness
import Testing

/// The reference SUT passes every scenario of the shipped suites it can be reached in-process for,
/// against the committed golden files (traffic digests included): the healthy baseline every
/// faulty mode below is measured against.
struct InProcessRunTests {
    /// `copd-desaturation` and `every-kind-valid-and-invalid` send over MQTT, which needs a broker
    /// (`IntegrationTests`; relayed over HTTP the first runs in `InProcessProfileTests`).
    @Test(arguments: InProcessRun.names("core", except: ["copd-desaturation", "every-kind-valid-and-invalid"]))
    func eachCoreScenarioPasses(_ name: String) async throws {
        let verdict = try await InProcessRun.verdict(InProcessRun.path("core", name))
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(verdict.acknowledged > 0)
    }

    /// The boundary, limits and traces suites (the traces replay recordings from the field: a
    /// Dexcom Clarity export, an Apple Health export, a btsnoop capture, CSV and readings.jsonl).
    @Test(
        arguments: ["boundaries", "limits", "traces"].flatMap { suite in InProcessRun.names(suite).map { (suite, $0) } }
    )
    func eachBoundaryLimitsAndTracesScenarioPasses(_ suite: String, _ name: String) async throws {
        let verdict = try await InProcessRun.verdict(InProcessRun.path(suite, name))
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
    }
}

/// Each faulty mode of the reference SUT is caught by the check that names it, and by no check
/// that would misdiagnose it (a missing alert is a clinical failure, a lost reading a storage one).
struct InProcessFaultTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var scenario: String
        var fault: String
        /// What the judge must report: exactly these findings, beside the tolerated ones.
        var findings: Set<Finding>
        var testDescription: String { "\(fault) on \(scenario)" }
    }

    static let cases: [Case] = [
        Case(scenario: "hypertensive-crisis", fault: "drop-alerts=1", findings: [.missed]),
        Case(scenario: "hypertensive-crisis", fault: "miss-rule=bp.hypertensive-crisis", findings: [.missed]),
        Case(scenario: "hypertensive-crisis", fault: "wrong-severity", findings: [.wrongSeverity]),
        Case(scenario: "hypertensive-crisis", fault: "duplicate-alerts", findings: [.duplicate]),
        Case(scenario: "hypertensive-crisis", fault: "wrong-evidence", findings: [.wrongEvidence]),
        // The alerts were raised from what was acknowledged: storage losses are no clinical finding.
        Case(
            scenario: "vitaledge-daily-summary",
            fault: "lose-stored=0.05",
            findings: [.lostAfterAck, .countMismatch]
        ),
        Case(scenario: "vitaledge-daily-summary", fault: "alter-stored=0.05", findings: [.altered]),
        // Readings sent again stored again (under ids of the SUT's own), and so counted twice.
        Case(
            scenario: "corrupt-and-duplicate-payloads",
            fault: "store-retries",
            findings: [.storedTwice, .countMismatch]
        ),
        Case(scenario: "corrupt-and-duplicate-payloads", fault: "accept-invalid", findings: [.validationMismatch]),
        Case(scenario: "vitaledge-daily-summary", fault: "accept-invalid", findings: [.validationMismatch]),
        // A backend refusing every daily summary (the VitalEdge SDS §4.2) fails the month-end scenario's valid ones.
        Case(scenario: "vitaledge-month-end", fault: "refuse-summaries", findings: [.validationMismatch]),
        // Period queries that drop a month's last day (the InTouch PRD physician story 8), kind queries that
        // answer every kind (story 9): the full read-back is whole, so nothing else fails.
        Case(scenario: "vitaledge-month-end", fault: "period-drops-month-end", findings: [.queryMismatch]),
        Case(scenario: "vitaledge-month-end", fault: "kind-ignored", findings: [.queryMismatch]),
        // Refusals that name no field fail only the SHOULD checks of the field named.
        Case(scenario: "corrupt-and-duplicate-payloads", fault: "bare-refusals", findings: [.validationMismatch]),
    ]

    /// A backend that refuses as the VitalEdge SDS words it ("400 Bad Request: Invalid data", no field)
    /// passes the gate with a warning per refusal, and fails it only with `--strict`, on exactly
    /// those checks.
    @Test func aBackendFollowingSeed001LiterallyPassesWithWarnings() async throws {
        let verdict = try await InProcessRun.verdict(
            InProcessRun.path("core", "corrupt-and-duplicate-payloads"),
            faults: ["bare-refusals"]
        )
        let failed = verdict.checks.filter { $0.finding != nil && $0.kind != .budget }
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { $0.kind == .refusedField && $0.level == .should }, "\(failed.prefix(3))")
        let statuses = verdict.checks.filter { $0.kind == .validation }
        #expect(statuses.allSatisfy { $0.passed }, "every status was right")
        let lenient = GatePolicy(today: "2026-11-27").apply([verdict]).verdicts[0]
        let judged = lenient.checks.filter { $0.kind != .budget }
        #expect(judged.allSatisfy { $0.passed })
        #expect(lenient.checks.filter { $0.excuse == .warning }.count == failed.count)
        var strict = GatePolicy(today: "2026-11-27")
        strict.strict = true
        let gated = strict.apply([verdict]).verdicts[0]
        #expect(gated.checks.filter { !$0.passed && $0.kind != .budget }.count == failed.count)
    }

    @Test(arguments: cases)
    func eachFaultIsCaughtByItsCheck(_ c: Case) async throws {
        let verdict = try await InProcessRun.verdict(InProcessRun.path("core", c.scenario), faults: [c.fault])
        #expect(verdict.error == nil)
        #expect(!verdict.passed)
        // Exactly its findings: a missed alert no longer fails the reading → alert budget besides.
        #expect(
            InProcessRun.findings(verdict, latency: false) == c.findings,
            "\(InProcessRun.failures(verdict).prefix(6))"
        )
        if c.fault == "accept-invalid", c.scenario == "vitaledge-daily-summary" {
            // Every corrupted VitalEdge payload of the scenario, each naming the field it should have.
            let mismatches = verdict.checks.filter { $0.finding == .validationMismatch }
            #expect(mismatches.count == 9)
            for field in ["heartRate", "timestamp", "unexpectedField", "stepCount"] {
                #expect(
                    mismatches.contains { $0.detail.contains("expected 400 naming field '\(field)', got 200") },
                    "\(field): \(mismatches.map(\.detail))"
                )
            }
        }
        if c.fault == "refuse-summaries" {
            // Only the valid summaries' acceptance, traced to the requirement it verifies.
            let failed = verdict.checks.filter { !$0.passed && $0.kind != .budget }
            #expect(failed.map(\.name) == ["accepts 502/phone-502/daily-summary"], "\(failed.map(\.detail))")
            #expect(failed.first?.requirements.contains("ingest.daily-summary.accept") == true)
            #expect(
                failed.first?.detail.contains("502/phone-502/daily-summary/") == true,
                "\(failed.first?.detail ?? "")"
            )
        }
        if c.fault == "period-drops-month-end" {
            // November as a whole and the day across its end; December has no last day in the run.
            let failed = verdict.checks.filter { $0.finding == .queryMismatch }
            let names = failed.map(\.name)
            #expect(
                names.contains("stored readings of patient 502 by period 2024-11-01T00:00:00Z to 2024-12-01T00:00:00Z")
            )
            #expect(
                names.contains("stored readings of patient 502 by period 2024-11-30T12:00:00Z to 2024-12-01T12:00:00Z")
            )
            #expect(!names.contains { $0.contains("2024-12-01T00:00:00Z to 2025-01-01") }, "\(names)")
            #expect(failed.allSatisfy { $0.requirements == ["query.by-period"] })
        }
        if c.fault == "kind-ignored" {
            let failed = verdict.checks.filter { $0.finding == .queryMismatch }
            #expect(failed.map(\.name).allSatisfy { $0.contains(" by kind ") }, "\(failed.map(\.name))")
            #expect(failed.allSatisfy { $0.requirements == ["query.by-kind"] })
        }
        if c.fault.hasPrefix("alter-stored") {
            let altered = verdict.checks.first { $0.finding == .altered }
            #expect(altered?.detail.contains("heart-rate") == true, "\(altered?.detail ?? "")")
        }
    }

    /// A SUT that misses the low a real Dexcom Clarity export holds fails on that alert.
    @Test func aSUTMissingTheLowOfARecordedExportIsCaught() async throws {
        let verdict = try await InProcessRun.verdict(
            InProcessRun.path("traces", "field-recordings"),
            faults: ["miss-rule=glucose.level2-low"]
        )
        let failures = InProcessRun.failures(verdict, latency: false)
        #expect(failures.contains { $0.hasPrefix("missed alert glucose.level2-low patient rec-1") }, "\(failures)")
        #expect(InProcessRun.findings(verdict, latency: false) == [.missed], "\(failures)")
    }

    /// A SUT that ignores the patients' own limits (`thresholds:`) judges by the defaults: it misses
    /// the alert a lowered limit raises and raises those a widened one forbids.
    @Test func aSUTIgnoringPersonalLimitsIsCaught() async throws {
        let verdict = try await InProcessRun.verdict(
            InProcessRun.path("limits", "personal-alert-limits"),
            faults: ["ignore-limits"]
        )
        let failures = InProcessRun.failures(verdict)
        #expect(failures.contains { $0.hasPrefix("missed alert bp.hypertensive-crisis patient 602") }, "\(failures)")
        #expect(
            failures.contains { $0.hasPrefix("spurious unexpected alert hr.bradycardia patient 601") },
            "\(failures)"
        )
        #expect(
            failures.contains { $0 == "spurious unexpected alert hr.tachycardia patient 601" },
            "\(failures)"
        )
    }

    /// The boundary suite (scripted readings without measurement error) against a SUT whose
    /// comparisons are off by one: `>` and `<` rules fire one run early (at the threshold itself)
    /// or where nothing was expected; `>=` and `<=` rules miss the run at the threshold, or fire one
    /// run late — on exactly the boundary checks of every rule, and on nothing else.
    @Test(arguments: [
        (
            "adult-thresholds",
            [
                "early alert glucose.meter-level2-low patient meter", "missed alert temp.fever patient fever",
                "early alert bp.hypertensive-crisis patient crisis",
                "early alert bp.hypertensive-crisis patient crisis #2",
                "spurious unexpected alert spo2.low patient spo2",
                "spurious unexpected alert hr.bradycardia patient brady",
                "spurious unexpected alert hr.tachycardia patient tachy",
            ]
        ),
        (
            // The ramps down to 66 pass through 70: level 1 at its boundary too.
            "cgm-thresholds",
            [
                "early alert glucose.level1-low patient level1", "early alert glucose.level1-low patient urgent",
                "early alert glucose.level1-low patient level2", "missed alert glucose.urgent-low patient urgent",
                "late alert glucose.urgent-low patient level2", "early alert glucose.level2-low patient level2",
                "early alert glucose.level2-high patient high",
            ]
        ),
        (
            "copd-infant-thresholds",
            [
                "spurious unexpected alert spo2.below-copd-target patient copd",
                "missed alert temp.fever patient infant",
                "early alert infant.spo2-low patient infant", "early alert infant.spo2-high patient infant",
                "spurious unexpected alert device.low-battery patient battery",
            ]
        ),
        (
            "stage2-series-thresholds",
            ["missed alert bp.stage2-sustained patient s140", "missed alert bp.stage2-sustained patient d90"]
        ),
    ])
    func offByOneFailsOnEveryBoundaryAndNothingElse(_ scenario: String, expected: [String]) async throws {
        let verdict = try await InProcessRun.verdict(InProcessRun.path("boundaries", scenario), faults: ["off-by-one"])
        let clinical: Set<Finding> = [.early, .missed, .spurious, .late]
        let failures = verdict.checks.compactMap { c in
            c.finding.flatMap { clinical.contains($0) ? "\($0.rawValue) \(c.name)" : nil }
        }
        for e in expected { #expect(failures.contains { $0 == e || $0.hasPrefix(e + " ") }, "\(e) in \(failures)") }
        #expect(failures.count == expected.count, "nothing but the boundaries: \(failures)")
    }
}
