import RunRecord
import VitalSimCore

/// The alerts the SUT raised against the golden file's: each expected alert raised in its window
/// with its severity (`alert RULE patient P`), and no other (`no other alerts`, or one check per
/// unexpected group: spurious, duplicate, unmapped). Re-judged over every shard's alerts when a
/// sharded run is merged.
package struct AlertsArea: ConformanceArea {
    package var name: String { "alerts" }
    package var title: String { "alerts" }
    package var kinds: Set<CheckKind> { [.alert, .noOtherAlerts] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] { ["alerts.raised", "alerts.no-spurious", "alerts.once-per-episode"] }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        alertChecks(run.golden.alerts, run.observation.alerts.observed, waited: run.observation.alerts.wait)
    }

    /// Judged again over every shard's alerts, which are each a patient's of one shard.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        alertChecks(golden.alerts, parts.flatMap(\.alerts), waited: verdict.merging.alertWait)
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let rule = check.rule.map { ["rule." + $0] } ?? []
        guard check.kind == .noOtherAlerts else { return rule + ["alerts.raised"] }
        if check.name.hasPrefix("duplicate ") { return rule + ["alerts.once-per-episode"] }
        if check.name.hasPrefix("unexpected ") { return rule + ["alerts.no-spurious"] }
        return ["alerts.no-spurious", "alerts.once-per-episode"]
    }

    package func exercised(by plan: ExercisePlan) -> [Check] {
        let expected = (plan.golden?.alerts ?? []).map {
            plan.check(.alert, "alert \($0.rule) patient \($0.patientID)", rule: $0.rule)
        }
        return expected + [plan.check(.noOtherAlerts, "no other alerts")]
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        guard check.kind == .alert else { return sources.alertList }
        return sources.expectedAlert(mentionedIn: check.name) ?? sources.alertList
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        let expected = checks.filter { $0.kind == .alert }
        let raised = expected.filter(\.passed).count
        let unexpected = checks.filter { $0.kind == .noOtherAlerts && $0.finding != nil }.count
        return AreaRow(
            self,
            checks,
            about:
                "\(raised) of \(expected.count) expected alert(s) raised as expected, \(unexpected) group(s) of other alerts"
        )
    }

    /// Expectations and observed alerts are paired by ``AlertMatching`` (optimal, bounded); an
    /// expectation without a pair is missed (with the nearest unpaired alert of its rule as a hint),
    /// and each alert without a pair is a check of its own: a duplicate when it falls within reach of
    /// a paired expectation of its rule and patient, spurious otherwise.
    /// - Parameter waited: how long the run waited for expectations still missing, for their findings.
    package func alertChecks(
        _ expected: [GoldenFile.ExpectedAlert],
        _ all: [ObservedAlert],
        waited: String? = nil
    ) -> [Check] {
        // An alert whose names the profile cannot map is judged on its own: it pairs with nothing.
        // An alert whose only unmapped name is its severity pairs as usual (see alertCheck).
        let observed = all.filter { $0.unmapped == nil || $0.onlySeverityUnmapped }
        let pairing = AlertMatching.match(expected, observed)
        let paired = Set(pairing.compactMap { $0 })
        let unpaired = observed.indices.filter { !paired.contains($0) }.map { observed[$0] }
        var checks: [Check] = []
        let names = AlertSubjects(expected.map { ($0.rule, $0.patientID) }).names.map { "alert " + $0 }
        for (i, e) in expected.enumerated() {
            let name = names[i]
            guard let j = pairing[i] else {
                let detail = missedDetail(e, unpaired) + unmappedHint(e, all) + (waited.map { "; \($0)" } ?? "")
                checks.append(Check(kind: .alert, name: name, rule: e.rule, finding: .missed, detail: detail))
                continue
            }
            let inWindow = AlertMatching.distance(observed[j].raisedAt, from: e.from, to: e.to) == 0
            checks.append(alertCheck(e, observed[j], name: name, inWindow: inWindow))
        }
        let pairedExpectations = expected.indices.filter { pairing[$0] != nil }.map { expected[$0] }
        checks += unexpectedAlertChecks(
            unpaired,
            pairedExpectations: pairedExpectations,
            unmapped: all.filter { $0.unmapped != nil && !$0.onlySeverityUnmapped }
        )
        return checks
    }
    /// For a missed expectation: the unmapped alerts of its patient within reach of its window, which
    /// may be it under a name the SUT profile does not map.
    func unmappedHint(_ goldenFile: GoldenFile.ExpectedAlert, _ all: [ObservedAlert]) -> String {
        let near = all.filter {
            $0.unmapped != nil && $0.patientID == goldenFile.patientID
                && AlertMatching.distance($0.raisedAt, from: goldenFile.from, to: goldenFile.to)
                    <= AlertMatching.pairingBound
        }
        guard let first = near.first else { return "" }
        let names = Array(Set(near.map { "'\($0.rule)'" })).sorted().joined(separator: ", ")
        return
            "; the SUT raised \(near.count) alert(s) for this patient near the window under name(s) the profile does not map (\(names), first: alert \(first.alertID)): map them in rules:/severities: to judge them"
    }
    /// Why an expectation is missed, naming the nearest unpaired alert of its rule and patient.
    func missedDetail(_ goldenFile: GoldenFile.ExpectedAlert, _ unpaired: [ObservedAlert]) -> String {
        let detail =
            "no \(goldenFile.rule) alert for patient \(goldenFile.patientID); expected raisedAt in \(Verdict.iso(goldenFile.from))…\(Verdict.iso(goldenFile.to))"
        let sameRule = unpaired.filter { $0.patientID == goldenFile.patientID && $0.rule == goldenFile.rule }
        guard
            let nearest = sameRule.min(by: {
                AlertMatching.distance($0.raisedAt, from: goldenFile.from, to: goldenFile.to)
                    < AlertMatching.distance($1.raisedAt, from: goldenFile.from, to: goldenFile.to)
            })
        else { return detail }
        let gap = VirtualDuration(
            milliseconds: AlertMatching.distance(nearest.raisedAt, from: goldenFile.from, to: goldenFile.to)
        )
        let side = nearest.raisedAt < goldenFile.from ? "before" : "after"
        let bound = VirtualDuration(milliseconds: AlertMatching.pairingBound)
        return detail
            + "; the nearest unpaired one (alert \(nearest.alertID), \(Verdict.iso(nearest.raisedAt))) is \(gap) \(side) the window, beyond the \(bound) pairing bound"
    }
    /// The alerts no expectation accounts for, one check per group so that a flapping rule is one
    /// failure, named without times (``UnexpectedAlertGroups``); "no other alerts" passes when there
    /// is none.
    func unexpectedAlertChecks(
        _ unpaired: [ObservedAlert],
        pairedExpectations: [GoldenFile.ExpectedAlert],
        unmapped: [ObservedAlert] = []
    ) -> [Check] {
        var groups = UnexpectedAlertGroups(pairedExpectations: pairedExpectations)
        for alert in unmapped.sorted(by: UnexpectedAlertGroups.byTime) { groups.addUnmapped(alert) }
        for alert in unpaired.sorted(by: UnexpectedAlertGroups.byTime) { groups.addUnpaired(alert) }
        guard !groups.groups.isEmpty else {
            return [
                Check(
                    kind: .noOtherAlerts,
                    name: "no other alerts",
                    rule: nil,
                    finding: nil,
                    detail: "only the expected alerts were raised"
                )
            ]
        }
        return groups.checks
    }
    /// The check of one expectation against the alert matched to it.
    func alertCheck(
        _ goldenFile: GoldenFile.ExpectedAlert,
        _ observedAlert: ObservedAlert,
        name: String,
        inWindow: Bool
    ) -> Check {
        if !inWindow {
            let detail =
                "raisedAt \(Verdict.iso(observedAlert.raisedAt)) is outside the expected window \(Verdict.iso(goldenFile.from))…\(Verdict.iso(goldenFile.to))"
            return Check(
                kind: .alert,
                name: name,
                rule: goldenFile.rule,
                finding: observedAlert.raisedAt > goldenFile.to ? .late : .early,
                detail: detail
            )
        }
        if let raw = observedAlert.unmappedSeverity {
            let detail =
                "raised at \(Verdict.iso(observedAlert.raisedAt)) (alert \(observedAlert.alertID)) with severity '\(raw)', which the SUT profile's severities: does not map (expected \(goldenFile.severity.rawValue)): map it to judge the severity"
            return Check(kind: .alert, name: name, rule: goldenFile.rule, finding: .unmappedSeverity, detail: detail)
        }
        if observedAlert.severity != goldenFile.severity.rawValue {
            let detail =
                "severity \(observedAlert.severity), expected \(goldenFile.severity.rawValue) (alert \(observedAlert.alertID))"
            return Check(kind: .alert, name: name, rule: goldenFile.rule, finding: .wrongSeverity, detail: detail)
        }
        return Check(
            kind: .alert,
            name: name,
            rule: goldenFile.rule,
            finding: nil,
            detail: "raised at \(Verdict.iso(observedAlert.raisedAt)) (alert \(observedAlert.alertID))"
        )
    }
}
