import RunRecord

/// What decides whether a run's findings fail it (a CI gate): the SUT's conformance statement, the
/// requirement levels (`--strict`), the waivers file and the baseline verdict. Applied to judged
/// verdicts, it sets each failed check's ``Check/excuse`` and adds a failing check per expired
/// waiver, and says which waivers and known failures are no longer needed.
package struct GatePolicy: Sendable {
    package var conformance = ConformanceStatement()
    /// SHOULD findings fail too.
    package var strict = false
    package var waivers: [Waiver] = []
    package var baseline: Baseline?
    /// What makes a latency path slower than the baseline's.
    package var latencySettings = LatencyComparison.Settings()
    /// Today (UTC, `YYYY-MM-DD`), against which waivers expire.
    package var today: String

    package init(today: String) { self.today = today }

    /// What the gate did beside excusing checks.
    package struct Outcome: Sendable {
        package var verdicts: [Verdict]
        /// Waivers whose check passed (or was not found) in the scenarios run: remove them.
        package var unneededWaivers: [Waiver] = []
        /// Baseline failures that now pass (ids).
        package var fixed: [String] = []

        /// Lines for the console: what the waivers file and the baseline can lose.
        package var notes: [String] {
            unneededWaivers.map {
                "waiver no longer needed (\($0.location)): \($0.check) now passes or is not judged; remove it"
            } + fixed.map { "fixed since the baseline: \($0)" }
        }
    }

    /// The verdicts with the gate applied. Only waivers and baseline entries of the scenarios run
    /// are reported as unneeded (a run of part of a suite says nothing of the rest).
    package func apply(_ verdicts: [Verdict]) -> Outcome {
        var waived: Set<String> = []
        var out = Outcome(verdicts: [])
        let byCheck = Dictionary(waivers.map { ($0.check, $0) }, uniquingKeysWith: { first, _ in first })
        for var verdict in verdicts {
            guard verdict.error == nil else {
                out.verdicts.append(verdict)
                continue
            }
            if let measured = baseline?.latency[verdict.scenario] {
                verdict.checks += regressionChecks(
                    verdict,
                    baseline: measured,
                    baselinePollCycle: baseline?.pollCycles[verdict.scenario]
                )
            }
            for i in verdict.checks.indices {
                let id = verdict.checks[i].id(in: verdict.scenario)
                verdict.checks[i].excuse = excuse(verdict.checks[i], id: id, waiver: byCheck[id])
                if case .waived = verdict.checks[i].excuse { waived.insert(id) }
            }
            for waiver in waivers where waiver.hasExpired(on: today) && waiver.check.hasPrefix(verdict.scenario + ": ")
            {
                let detail =
                    "the waiver of \(waiver.check) (\(waiver.location): \(waiver.reason)"
                    + (waiver.ticket.map { ", \($0)" } ?? "")
                    + ") expired on \(waiver.expires ?? ""): renew it with a new date or remove it"
                var expired = Check(
                    kind: .waiver,
                    name: "waiver of \(waiver.check.dropFirst(verdict.scenario.count + 2)) unexpired",
                    rule: nil,
                    finding: .waiverExpired,
                    detail: detail
                )
                expired.requirements = ConformanceRegistry.standard.requirements(of: expired, kinds: { _ in [] })
                verdict.checks.append(expired)
            }
            out.verdicts.append(verdict)
        }
        let scenarios = Set(verdicts.filter { $0.error == nil }.map(\.scenario))
        func ran(_ id: String) -> Bool { scenarios.contains { id.hasPrefix($0 + ": ") } }
        out.unneededWaivers = waivers.filter {
            ran($0.check) && !waived.contains($0.check) && !$0.hasExpired(on: today)
        }
        if let baseline {
            let failingNow = Set(
                out.verdicts.flatMap { v in v.checks.filter { $0.finding != nil }.map { $0.id(in: v.scenario) } }
            )
            out.fixed = baseline.failing.filter { ran($0) && !failingNow.contains($0) }.sorted()
        }
        return out
    }

    /// One check per latency path measured in both this run and the baseline (the harness's own
    /// scheduling lag aside): `latency-regression` when it is slower beyond noise, at the level of the
    /// scenario's latency budgets. Reading → alert is compared at the resolution of the longer of the
    /// two runs' alert-poll cycles.
    func regressionChecks(
        _ verdict: Verdict,
        baseline: [LatencyPath: LatencyDistribution],
        baselinePollCycle: Double?
    ) -> [Check] {
        let level = verdict.checks.first { $0.kind == .budget }?.level ?? .shall
        var checks: [Check] = []
        for path in baseline.keys.sorted() where path != .schedulingLag {
            guard let measured = verdict.merging.histograms[path], let base = baseline[path] else { continue }
            let comparison = LatencyComparison.compare(
                base: base,
                new: LatencyDistribution(measured),
                settings: latencySettings,
                resolution: path.resolution(pollCycles: baselinePollCycle, verdict.merging.alertPollCycle)
            )
            var check = Check(
                kind: .budget,
                name: "budget \(path.rawValue) no slower than the baseline",
                rule: nil,
                finding: comparison.outcome == .slower ? .latencyRegression : nil,
                detail: comparison.summary(baseline: self.baseline?.file ?? "the baseline"),
                skipped: comparison.outcome == .tooFewSamples,
                level: level
            )
            // The gate judges it, on the budgets area's terms.
            check.area = BudgetsArea().name
            check.requirements = ConformanceRegistry.standard.requirements(of: check, kinds: { _ in [] })
            checks.append(check)
        }
        return checks
    }

    /// Why a check's finding does not fail the run, in order: not claimed, a SHOULD, waived, known.
    func excuse(_ check: Check, id: String, waiver: Waiver?) -> Excuse? {
        if let reason = conformance.notApplicable(check) { return .notApplicable(reason: reason) }
        guard check.finding != nil else { return nil }
        if check.level == .should, !strict { return .warning }
        if let waiver, !waiver.hasExpired(on: today) { return .waived(reason: waiver.reason, ticket: waiver.ticket) }
        if baseline?.failing.contains(id) == true { return .known }
        return nil
    }
}
