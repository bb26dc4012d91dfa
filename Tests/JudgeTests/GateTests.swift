import Foundation
import Histogram
import Judge
import RunRecord
import Testing
import Traffic
import VitalSimCore

/// The CI gate: a conformance statement, requirement levels, waivers and a baseline decide which
/// findings fail a run; check names stay the same run after run. All in-process, on constructed runs.
@Suite struct GateTests {
    /// 2024-11-07T10:00:00Z.
    let t0: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    func expected(_ rule: String, patient: String = "1", at t: Int64) -> GoldenFile.ExpectedAlert {
        GoldenFile.ExpectedAlert(patientID: patient, rule: rule, severity: .high, from: t - minute, to: t + 5 * minute)
    }

    func observed(
        _ id: String,
        _ rule: String,
        patient: String = "1",
        at t: Int64,
        severity: String = "high"
    )
        -> ObservedAlert
    {
        ObservedAlert(alertID: id, patientID: patient, rule: rule, severity: severity, raisedAt: t, evidence: [])
    }

    /// A scenario expecting a tachycardia, a fever and a hypertensive crisis of patient 1, and the
    /// rejection of reading 1/d/2 naming `unit`.
    var golden: GoldenFile {
        var goldenFile = JudgeFixtures.golden(
            alerts: [
                expected("hr.tachycardia", at: t0), expected("temp.fever", at: t0 + 60 * minute),
                expected("bp.hypertensive-crisis", at: t0 + 120 * minute),
            ],
            validation: [GoldenFile.ExpectedValidation(reading: "1/d/2", status: 400, field: "unit")]
        )
        goldenFile.budgets = [GoldenFile.Budget(path: .readingToAlert, limits: [(99, 1000)])]
        return goldenFile
    }

    let plan = [
        SentRequest(
            PlannedRequest(
                path: "/r",
                body: [],
                readings: [("1/d/1", 0)],
                patientID: "1",
                sendAt: 0,
                expectedRejection: nil
            )
        ),
        SentRequest(
            PlannedRequest(
                path: "/r",
                body: [],
                readings: [("1/d/2", 0)],
                patientID: "1",
                sendAt: 0,
                expectedRejection: nil
            )
        ),
    ]

    /// Judges a run in which the SUT raised `alerts` and refused 1/d/2 naming `field`.
    func verdict(_ alerts: [ObservedAlert], field: String = "unit", alertLatency: [UInt64] = [1000]) -> Verdict {
        var result = JudgeFixtures.result(
            alerts,
            outcomes: [RequestOutcome(status: 201), RequestOutcome(status: 400, field: field)]
        )
        result.alerts.latency = JudgeFixtures.histogram(alertLatency)
        return Verdict(scenario: "s", golden: golden, plan: plan, digest: "sha256:x", result: result)
    }

    /// The backend of the issue: it claims two of the three rules and its crisis rule is broken.
    var partial: ConformanceStatement { ConformanceStatement(rules: ["hr.tachycardia", "bp.hypertensive-crisis"]) }
    var today: String { "2026-11-27" }

    func failing(_ verdict: Verdict) -> [String] { verdict.checks.filter { !$0.passed }.map(\.name) }

    @Test func checksOfUnclaimedRulesAreNotApplicableButItsAlertsAreStillJudged() {
        // It raises the tachycardia and the crisis it claims, not the fever it does not claim.
        let run = verdict([
            observed("a", "hr.tachycardia", at: t0), observed("b", "bp.hypertensive-crisis", at: t0 + 120 * minute),
        ])
        #expect(failing(run) == ["alert temp.fever patient 1"], "ungated, the unclaimed rule fails")
        var gate = GatePolicy(today: today)
        gate.conformance = partial
        let gated = gate.apply([run]).verdicts[0]
        #expect(gated.passed)
        let fever = gated.checks.first { $0.name == "alert temp.fever patient 1" }
        #expect(fever?.finding == .missed)
        #expect(fever?.excuse == .notApplicable(reason: "the conformance statement does not claim rule temp.fever"))
        // A spurious alert of a rule it does not claim stays spurious.
        let spurious = verdict([
            observed("a", "hr.tachycardia", at: t0), observed("b", "bp.hypertensive-crisis", at: t0 + 120 * minute),
            observed("c", "spo2.low", at: t0 + 30 * minute),
        ])
        #expect(failing(gate.apply([spurious]).verdicts[0]) == ["unexpected alert spo2.low patient 1"])
    }

    @Test func aWaivedDefectPassesTheGateAndANewDefectFailsWithExactlyThatCheck() {
        var gate = GatePolicy(today: today)
        gate.conformance = partial
        gate.waivers = [
            Waiver(
                check: "s: alert bp.hypertensive-crisis patient 1",
                reason: "crisis rule ignores diastolic > 120",
                ticket: "ACME-42",
                expires: "2027-01-31"
            )
        ]
        // The known defect: the crisis is never raised.
        let known = gate.apply([verdict([observed("a", "hr.tachycardia", at: t0)])])
        #expect(known.verdicts[0].passed)
        let crisis = known.verdicts[0].checks.first { $0.name == "alert bp.hypertensive-crisis patient 1" }
        #expect(crisis?.excuse == .waived(reason: "crisis rule ignores diastolic > 120", ticket: "ACME-42"))
        #expect(known.notes.isEmpty)
        // A new defect besides: the tachycardia comes 20 minutes late.
        let worse = gate.apply([verdict([observed("a", "hr.tachycardia", at: t0 + 20 * minute)])])
        #expect(failing(worse.verdicts[0]) == ["alert hr.tachycardia patient 1"])
        #expect(worse.verdicts[0].checks.first { $0.name == "alert hr.tachycardia patient 1" }?.finding == .late)
        // The defect fixed: the waiver is reported as no longer needed.
        let fixed = gate.apply([
            verdict([
                observed("a", "hr.tachycardia", at: t0), observed("b", "bp.hypertensive-crisis", at: t0 + 120 * minute),
            ])
        ])
        #expect(fixed.verdicts[0].passed)
        #expect(fixed.unneededWaivers.map(\.check) == ["s: alert bp.hypertensive-crisis patient 1"])
    }

    @Test func anExpiredWaiverFailsTheRun() {
        var gate = GatePolicy(today: "2027-02-01")
        gate.conformance = partial
        gate.waivers = [
            Waiver(
                check: "s: alert bp.hypertensive-crisis patient 1",
                reason: "r",
                expires: "2027-01-31",
                location: "w.yaml:3"
            )
        ]
        let outcome = gate.apply([verdict([observed("a", "hr.tachycardia", at: t0)])])
        #expect(
            failing(outcome.verdicts[0])
                == [
                    "alert bp.hypertensive-crisis patient 1",
                    "waiver of alert bp.hypertensive-crisis patient 1 unexpired",
                ]
        )
        let expiry = outcome.verdicts[0].checks.last
        #expect(expiry?.finding == .waiverExpired)
        #expect(expiry?.detail.contains("w.yaml:3") == true)
        #expect(Waiver(check: "x: y", reason: "r", expires: "2027-01-31").hasExpired(on: "2027-01-31") == false)
    }

    @Test func aRefusalThatFollowsSeed001LiterallyWarnsAndFailsOnlyWhenStrict() throws {
        // The VitalEdge SDS asks for "400 Bad Request: Invalid data": a 400 naming no field.
        let literal = verdict(
            [
                observed("a", "hr.tachycardia", at: t0), observed("b", "temp.fever", at: t0 + 60 * minute),
                observed("c", "bp.hypertensive-crisis", at: t0 + 120 * minute),
            ],
            field: ""
        )
        #expect(failing(literal) == ["rejects 1/d/2 naming its field"])
        let lenient = GatePolicy(today: today).apply([literal]).verdicts[0]
        #expect(lenient.passed)
        #expect(lenient.checks.first { $0.kind == .refusedField }?.excuse == .warning)
        #expect(
            RunReport([lenient]).console(colour: false).contains(
                "warning validation-mismatch rejects 1/d/2 naming its field"
            )
        )
        var strict = GatePolicy(today: today)
        strict.strict = true
        #expect(failing(strict.apply([literal]).verdicts[0]) == ["rejects 1/d/2 naming its field"])
        // A golden file may make it a SHALL.
        var goldenFile = golden
        goldenFile.levels[.rejectionField] = .shall
        #expect(goldenFile.level(.rejectionField) == .shall)
        #expect(try GoldenFile.parse(goldenFile.yaml(), file: "g.yaml").levels == [.rejectionField: .shall])
    }

    @Test func aBaselineExcusesItsFailuresAndNotNewOnes() throws {
        let before = verdict([observed("a", "hr.tachycardia", at: t0)])
        let json = RunReport([before]).json
        let baseline = try Baseline.parse(Data(json.utf8), file: "before.json")
        #expect(baseline.failing == ["s: alert temp.fever patient 1", "s: alert bp.hypertensive-crisis patient 1"])
        var gate = GatePolicy(today: today)
        gate.baseline = baseline
        #expect(gate.apply([before]).verdicts[0].passed)
        let after = gate.apply([verdict([observed("b", "temp.fever", at: t0 + 60 * minute)])])
        #expect(failing(after.verdicts[0]) == ["alert hr.tachycardia patient 1"], "the new failure only")
        #expect(after.fixed == ["s: alert temp.fever patient 1"])
        #expect(throws: BaselineError.self) { try Baseline.parse(Data("[1]".utf8), file: "x.json") }
    }

    /// Two runs whose alerts differ only in ids and times (a flapping rule flaps differently) give
    /// the same JUnit test names.
    @Test func twoRunsGiveIdenticalJUnitNames() {
        func names(_ offset: Int64, flaps: Int) -> [String] {
            var alerts = [
                observed("x\(offset)", "hr.tachycardia", at: t0 + offset),
                observed("y\(offset)", "temp.fever", at: t0 + 60 * minute + offset),
            ]
            alerts += (0..<flaps).map {
                observed("f\(offset)-\($0)", "spo2.low", at: t0 + Int64($0) * 3 * minute + offset)
            }
            alerts.append(observed("d\(offset)", "hr.tachycardia", at: t0 + 2 * minute + offset))
            let xml = RunReport([verdict(alerts)]).junit
            return xml.split(separator: "\n").filter { $0.contains("<testcase ") }.map(String.init)
        }
        let first = names(0, flaps: 7)
        #expect(first == names(17_000, flaps: 12))
        #expect(first.filter { $0.contains("spo2.low") }.count == 1)
        #expect(first.contains { $0.contains("name=\"duplicate alert hr.tachycardia patient 1\"") })
    }

    @Test func noLatencyFindingForAlertsAlreadyMissed() {
        let none = verdict([], alertLatency: [])
        let budget = none.checks.first { $0.kind == .budget }
        #expect(budget?.finding == nil && budget?.skipped == true)
        // With every alert raised but none measured, the empty budget still fails.
        let unmeasured = verdict(
            [
                observed("a", "hr.tachycardia", at: t0), observed("b", "temp.fever", at: t0 + 60 * minute),
                observed("c", "bp.hypertensive-crisis", at: t0 + 120 * minute),
            ],
            alertLatency: []
        )
        #expect(unmeasured.checks.first { $0.kind == .budget }?.finding == .budgetExceeded)
    }

    @Test func anUnmappedSeverityIsItsOwnFindingOnTheExpectedAlert() {
        var urgent = observed("a", "hr.tachycardia", at: t0, severity: "URGENT")
        urgent.unmapped = "severity 'URGENT'"
        urgent.unmappedSeverity = "URGENT"
        let judged = verdict([urgent])
        let check = judged.checks.first { $0.name == "alert hr.tachycardia patient 1" }
        #expect(check?.finding == .unmappedSeverity)
        #expect(check?.detail.contains("severity 'URGENT', which the SUT profile's severities: does not map") == true)
        #expect(!judged.checks.contains { $0.finding == .unmapped || $0.finding == .spurious })
        // An unmapped rule is still an unmapped alert of its own, named by the SUT's name.
        var unknown = observed("b", "X_RULE", at: t0)
        unknown.unmapped = "rule 'X_RULE'"
        #expect(
            verdict([unknown]).checks.contains { $0.name == "SUT alert 'X_RULE' patient 1" && $0.finding == .unmapped }
        )
    }

    @Test func waiverFilesAreStrictWithFileAndLine() throws {
        let good = """
            waivers:
              - check: "s: alert bp.hypertensive-crisis patient 1"
                reason: crisis rule ignores diastolic > 120
                ticket: ACME-42
                expires: 2027-01-31
            """
        let waivers = try Waiver.parse(good, file: "w.yaml")
        #expect(
            waivers == [
                Waiver(
                    check: "s: alert bp.hypertensive-crisis patient 1",
                    reason: "crisis rule ignores diastolic > 120",
                    ticket: "ACME-42",
                    expires: "2027-01-31",
                    location: "w.yaml:2"
                )
            ]
        )
        let bad = """
            waivers:
              - check: "s: alert x"
                reason: r
                expires: 2027-02-30
              - check: "no scenario"
                reason: r
                until: 2027-01-01
            """
        #expect {
            try Waiver.parse(bad, file: "w.yaml")
        } throws: { error in
            let text = "\(error)"
            return text.contains("w.yaml:4") && text.contains("2027-02-30") && text.contains("w.yaml:5")
                && text.contains("'SCENARIO: CHECK NAME'") && text.contains("until")
        }
    }

    /// A SUT without an alert source (`alerts: none`): every check about alerts is not-applicable,
    /// a spurious one too (nothing was read); its other checks are judged as ever.
    @Test func withoutAnAlertSourceEveryAlertCheckIsNotApplicable() {
        let run = verdict([], field: "")
        #expect(!run.passed, "ungated, the expected alerts are missed")
        var statement = ConformanceStatement(rules: [])
        statement.listsAlerts = false
        var gate = GatePolicy(today: today)
        gate.conformance = statement
        let gated = gate.apply([run]).verdicts[0]
        let aboutAlerts = gated.checks.filter { [.alert, .noOtherAlerts, .evidence].contains($0.kind) }
        #expect(!aboutAlerts.isEmpty)
        #expect(
            aboutAlerts.allSatisfy {
                $0.excuse == .notApplicable(reason: "the SUT profile says the SUT has no alert source (alerts: none)")
            }
        )
        #expect(gated.checks.filter { $0.kind == .validation }.allSatisfy { $0.excuse == nil })
        #expect(statement.lines(knownRules: ["temp.fever"])[0].hasPrefix("alert source: none (alerts: none)"))
    }

    /// A care action on, or a notification of, an alert of a rule the SUT does not claim is
    /// not-applicable; one of a claimed rule is judged.
    @Test func careActionsAndRecipientsOfUnclaimedRulesAreNotApplicable() {
        for kind in [CheckKind.careAction, .recipients] {
            var check = Check(kind: kind, name: "x", rule: "temp.fever", finding: .actionRefused, detail: "")
            #expect(
                partial.notApplicable(check)
                    == "the conformance statement does not claim rule temp.fever, whose alert this is about"
            )
            check.rule = "hr.tachycardia"
            #expect(partial.notApplicable(check) == nil)
        }
    }

    /// A SUT claiming only structural refusals: a refusal check of another level is
    /// not-applicable, a structural one judged; every check names its level's requirement.
    @Test func refusalsOfUnclaimedLevelsAreNotApplicable() {
        var statement = ConformanceStatement()
        statement.refusals = [.structure]
        var check = Check(
            kind: .validation,
            name: "rejects 1/cgm/2",
            rule: nil,
            finding: .validationMismatch,
            detail: ""
        )
        check.refusalLevel = .plausibility
        #expect(
            statement.notApplicable(check)
                == "the conformance statement does not claim refusals of plausibility (conformance.refusals)"
        )
        check.kind = .refusedField
        #expect(statement.notApplicable(check) != nil)
        check.refusalLevel = .structure
        #expect(statement.notApplicable(check) == nil)
        check.kind = .validation
        #expect(
            IngestionArea().requirements(of: check, kinds: { _ in [.cgm] }) == [
                "ingest.cgm.refuse", "ingest.refuse.structure",
            ]
        )
        #expect(
            statement.lines(knownRules: [])[3]
                == "refusals claimed: structure; refusals of other invalid readings are not-applicable"
        )
        // Each corruption's form at its level: a string for a number breaks the structure, a bogus
        // unit the terminology, a negative value only plausibility.
        #expect(RefusalLevel.of(.wrongType) == .structure && RefusalLevel.of(.truncation) == .structure)
        #expect(RefusalLevel.of(.badFlags) == .terminology)
        #expect(
            [Corruption.badCRC, .outOfRange, .missingField, .futureTimestamp].allSatisfy {
                RefusalLevel.of($0) == .plausibility
            }
        )
    }

    @Test func theConformanceStatementSaysWhatItSelects() {
        let lines = partial.lines(knownRules: ["bp.hypertensive-crisis", "hr.tachycardia", "temp.fever"])
        #expect(lines[0] == "rules claimed (2 of 3): bp.hypertensive-crisis, hr.tachycardia")
        #expect(lines[1] == "not claimed, so their expected alerts are not-applicable: temp.fever")
        var quiet = ConformanceStatement()
        quiet.namesRefusedField = false
        let literal = verdict([], field: "")
        var gate = GatePolicy(today: today)
        gate.conformance = quiet
        gate.strict = true
        let field = gate.apply([literal]).verdicts[0].checks.first { $0.kind == .refusedField }
        #expect(
            field?.excuse
                == .notApplicable(reason: "the conformance statement says refusals do not name the refused field")
        )
    }
}

/// Reports say what was tested: the SUT, its profile and sha256, where, which VitalSim, suite,
/// seed, start and duration — in the console, JSON, JUnit properties and HTML.
@Suite struct RunDescriptionTests {
    let about = RunDescription(
        sut: "acme-rpm",
        profile: nil,
        target: "https://127.0.0.1:8443",
        suite: "scenarios/core",
        seed: 42,
        runID: "r1",
        started: 1_730_937_600_000,
        duration: 12.34,
        gate: ["strict"]
    )

    @Test func everyReportSaysWhatWasTested() throws {
        let verdict = Verdict(scenario: "fever-spike", checks: [])
        #expect(
            about.lines == [
                "sut: acme-rpm", "base url: https://127.0.0.1:8443", "vitalsim: \(VitalSimVersion.current)",
                "suite: scenarios/core", "seed: 42", "run id: r1", "started: 2024-11-07T00:00:00Z",
                "duration: 12.3 s", "gate: strict",
            ]
        )
        #expect(RunReport([verdict], about: about).console(colour: false).contains("tested: sut: acme-rpm; base url:"))
        let json = RunReport([verdict], about: about).json
        #expect(json.contains(#""run":{"sut":"acme-rpm","base url":"https://127.0.0.1:8443""#))
        #expect(RunReport([verdict], about: about).junit.contains(#"<property name="seed" value="42"/>"#))
        let html = try HTMLReport([verdict], about: about).render()
        #expect(html.contains("<tr><th>sut</th><td>acme-rpm</td></tr>"))
        #expect(html.contains(##"<a href="#scenario-fever-spike">fever-spike</a>"##))
    }

    @Test func aProfileIsNamedWithItsDigest() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID()).yaml").path
        try "name: x\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let described = RunDescription(
            sut: "x",
            profile: path,
            target: nil,
            suite: "s",
            seed: nil,
            runID: "run",
            started: 0,
            duration: 0,
            gate: []
        )
        // sha256sum of "name: x\n".
        let digest = "a2a79ea37edb1963efaae29281523ab441a8a99df048d204f22f3f413e325afc"
        #expect(described.lines[2] == "profile sha256: " + digest)
        #expect(described.lines[3].hasPrefix("base url: embedded reference SUT"))
    }
}

/// The HTML report's vitals charts: each alert on the charts of the signals its rule reads only,
/// and marked as the judge paired it — in its window, early or late, duplicate, spurious, and the
/// window no alert met as missed.
@Suite struct HTMLAlertMarksTests {
    let t0: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    func alert(_ id: String, _ rule: String, at t: Int64) -> ObservedAlert {
        ObservedAlert(alertID: id, patientID: "1", rule: rule, severity: "high", raisedAt: t, evidence: [])
    }

    func expected(_ rule: String, at t: Int64) -> GoldenFile.ExpectedAlert {
        GoldenFile.ExpectedAlert(patientID: "1", rule: rule, severity: .high, from: t - minute, to: t + 5 * minute)
    }

    @Test func alertsSitOnTheirSignalsChartsMarkedAsJudged() throws {
        var verdict = Verdict(scenario: "s", checks: [])
        verdict.expectedAlerts = [
            expected("hr.tachycardia", at: t0), expected("hr.tachycardia", at: t0 + 60 * minute),
            expected("spo2.low", at: t0 + 120 * minute),
        ]
        verdict.alerts = [
            alert("a", "hr.tachycardia", at: t0), alert("b", "hr.tachycardia", at: t0 + 2 * minute),
            alert("c", "hr.tachycardia", at: t0 + 70 * minute), alert("d", "spo2.low", at: t0 + 300 * minute),
        ]
        let points: [(time: Int64, value: Double)] = [(t0, 80), (t0 + 400 * minute, 90)]
        verdict.chart = ScenarioChart(
            start: t0 - 10 * minute,
            end: t0 + 400 * minute,
            patients: ["1"],
            series: [
                ScenarioChart.Series(
                    patientID: "1",
                    kind: "heart-rate",
                    unit: "/min",
                    points: points,
                    signals: [.heartRate]
                ),
                ScenarioChart.Series(patientID: "1", kind: "spo2", unit: "%", points: points, signals: [.spo2]),
            ],
            spans: []
        )
        let html = try HTMLReport([verdict]).render()
        let panels = html.components(separatedBy: "<svg class=\"panel\"").dropFirst()
        let heart = panels.first { $0.contains("data-kind=\"heart-rate\"") } ?? ""
        let spo2 = panels.first { $0.contains("data-kind=\"spo2\"") } ?? ""
        #expect(heart.contains(#"class="alert-marker matched" data-rule="hr.tachycardia""#))
        #expect(heart.contains(#"class="alert-marker duplicate" data-rule="hr.tachycardia""#))
        #expect(heart.contains(#"class="alert-marker late" data-rule="hr.tachycardia""#))
        #expect(!heart.contains("spo2.low"), "a SpO2 alert is not drawn on the heart-rate chart")
        #expect(spo2.contains(#"class="alert-marker spurious" data-rule="spo2.low""#))
        #expect(spo2.contains(#"class="expected-window missed" data-rule="spo2.low""#))
        #expect(!spo2.contains("hr.tachycardia"))
    }
}
