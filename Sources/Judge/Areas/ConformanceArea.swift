import RunRecord
import Traffic
import VitalSimCore

/// One part of what VitalSim judges a SUT on (alerts, refusals, stored data, the access matrix, …)
/// with everything the judge, the merge of a sharded run, coverage and the reports need of it, in
/// one place: its checks of a run, its merge rule, the requirement ids its checks verify, the checks
/// a scenario exercises, and its report rows. ``ConformanceRegistry/areas`` lists every area in the
/// order a verdict holds their checks; each of those iterates it, so an area cannot be left out of
/// one of them. What an area observes of a live SUT beyond the runner's traffic and alerts is its
/// probe, on the live side (LiveHarness's `AreaProbe`, a conformance of the same type).
package protocol ConformanceArea: Sendable {
    /// The area's stable name (`stored-data`): each of its checks carries it (``Check/area``), and
    /// reports key its rows by it.
    var name: String { get }
    /// How reports title the area (`stored data`).
    var title: String { get }
    /// The kinds of the checks it makes.
    var kinds: Set<CheckKind> { get }
    /// Where its observation comes from: the runner's traffic and alerts, or a probe of its own.
    var observedBy: ObservationSource { get }
    /// The catalogue's requirement ids its checks verify (beside an alert rule's own `rule.ID`).
    var requirementIDs: [String] { get }

    /// Its checks of a judged run; what the merge of a sharded run needs beyond them it keeps in
    /// `verdict.merging` (and the ingestion area counts the readings' fates into `verdict`).
    func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check]
    /// Its merge rule: its checks of a whole scenario from the verdicts of the scenario's shards,
    /// in the order an unsharded run makes them. `verdict` holds the shards' merge inputs added up
    /// and the checks of the areas before this one.
    func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check]
    /// The catalogue ids one of its checks verifies; `kinds` gives the kinds of a reading (`P/D/N`)
    /// or a device (`P/D`) the run sent.
    func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String]
    /// The checks a run of the scenario makes against a conforming SUT, named as the judge names
    /// them (`vitalsim coverage`).
    func exercised(by plan: ExercisePlan) -> [Check]
    /// Where one of its checks' expectation is written, for reports and CI annotations.
    func location(of check: Check, in sources: CheckLocator) -> SourceLocation
    /// Its row in a scenario's report: its checks summed up in a line.
    func reportRow(_ checks: [Check]) -> AreaRow
}

/// Where an area's observation comes from.
package enum ObservationSource: Sendable, Equatable {
    /// The runner's record of the traffic sent and the alerts seen (``RunObservation/traffic``,
    /// ``RunObservation/alerts``), or the golden file alone.
    case runner
    /// A probe of the area's own (during the run, or after it), kept in ``RunObservation/areas``.
    case probe
}

/// What one scenario's run gives the judge: the golden file, the requests sent, what was observed,
/// and what the areas that need more than the observation are given.
package struct JudgedRun: Sendable {
    package var scenario: String
    package var golden: GoldenFile
    /// The requests sent, without bodies, in plan order.
    package var plan: [SentRequest]
    /// The traffic digest; nil when another shard computes it.
    package var digest: String?
    package var observation: RunObservation
    /// The readings each alert may cite (nil: evidence is not judged).
    package var evidence: EvidenceCatalog?
    /// What the SUT must hold after the run (nil: its stored readings were not read back).
    package var stored: StoredDataExpectations?
    /// One shard's part of a scenario: a budget without samples is left to the merge.
    package var partial: Bool
}

/// An area's row in a scenario's report: how its checks came out, in a line.
package struct AreaRow: Sendable, Equatable {
    package var name: String
    package var title: String
    package var checks: Int
    package var failed: Int
    package var skipped: Int
    /// Each finding among the failed checks, with how many.
    package var findings: [(finding: Finding, count: Int)]
    /// What the area's checks were about, in words (`3 patients' stored readings`).
    package var about: String

    /// The row of `area` over `checks` (the area's own), about `about`.
    package init(_ area: some ConformanceArea, _ checks: [Check], about: String) {
        name = area.name
        title = area.title
        self.checks = checks.count
        let failing = checks.filter { !$0.passed }
        failed = failing.count
        skipped = checks.filter(\.skipped).count
        var counted: [(finding: Finding, count: Int)] = []
        for check in failing {
            guard let finding = check.finding else { continue }
            if let position = counted.firstIndex(where: { $0.finding == finding }) {
                counted[position].count += 1
            } else {
                counted.append((finding, 1))
            }
        }
        findings = counted
        self.about = about
    }

    /// The row as one line: `stored data: 12 checks, 1 failed (lost-after-ack ×1), 3 patients' stored readings`.
    package var line: String {
        var text = "\(title): \(checks) check(s)"
        if failed > 0 {
            text +=
                ", \(failed) failed ("
                + findings.map { "\($0.finding.rawValue) ×\($0.count)" }.joined(separator: ", ") + ")"
        }
        if skipped > 0 { text += ", \(skipped) skipped" }
        return about.isEmpty ? text : text + "; " + about
    }

    package static func == (lhs: AreaRow, rhs: AreaRow) -> Bool {
        lhs.name == rhs.name && lhs.checks == rhs.checks && lhs.failed == rhs.failed && lhs.skipped == rhs.skipped
            && lhs.about == rhs.about && lhs.findings.map(\.finding) == rhs.findings.map(\.finding)
            && lhs.findings.map(\.count) == rhs.findings.map(\.count)
    }
}
