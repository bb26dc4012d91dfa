import RunRecord

/// The alerts no expectation accounts for, grouped into the checks that report them: unmapped
/// names per (name, patient) as `SUT alert 'NAME' patient P`; duplicates per expectation they
/// repeat as `duplicate alert RULE patient P[ #n]`; spurious alerts per rule and patient as
/// `unexpected alert RULE patient P`. A check's name holds no time, so the same failure keeps its
/// name run after run; its detail counts the alerts and gives the first and the last.
struct UnexpectedAlertGroups {
    struct Group {
        var name: String
        var finding: Finding
        var rule: String?
        var alerts: [ObservedAlert]
        var what: String
    }

    let pairedExpectations: [GoldenFile.ExpectedAlert]
    /// The expectations' check names as ``Verdict/alertChecks`` numbers them (`#2` for a second
    /// expectation of one rule and patient), naming the episode a duplicate repeats.
    let episodeNames: [String]
    private(set) var groups: [Group] = []

    init(pairedExpectations: [GoldenFile.ExpectedAlert]) {
        self.pairedExpectations = pairedExpectations
        episodeNames = AlertSubjects(pairedExpectations.map { ($0.rule, $0.patientID) }).names.map { "alert " + $0 }
    }

    /// Time order, then id: the order alerts join their groups (so first and last are by time).
    static func byTime(_ a: ObservedAlert, _ b: ObservedAlert) -> Bool {
        (a.raisedAt, a.alertID) < (b.raisedAt, b.alertID)
    }

    mutating func addUnmapped(_ alert: ObservedAlert) {
        add(
            alert,
            to: "SUT alert '\(alert.rule)' patient \(alert.patientID)",
            .unmapped,
            rule: nil,
            what: "the SUT profile has no mapping for its \(alert.unmapped ?? "") (add it to the profile's "
                + "rules:/severities:, or the SUT raised an alert VitalSim does not know)"
        )
    }

    /// A duplicate of the nearest paired expectation of its rule and patient within the pairing
    /// bound, else spurious.
    mutating func addUnpaired(_ alert: ObservedAlert) {
        func distance(_ i: Int) -> Int64 {
            AlertMatching.distance(alert.raisedAt, from: pairedExpectations[i].from, to: pairedExpectations[i].to)
        }
        let repeated = pairedExpectations.indices.filter {
            pairedExpectations[$0].patientID == alert.patientID && pairedExpectations[$0].rule == alert.rule
                && distance($0) <= AlertMatching.pairingBound
        }.min { distance($0) < distance($1) }
        if let episode = repeated {
            add(
                alert,
                to: "duplicate " + episodeNames[episode],
                .duplicate,
                rule: alert.rule,
                what: "repeat(s) of an expected alert already met"
            )
        } else {
            add(
                alert,
                to: "unexpected alert \(alert.rule) patient \(alert.patientID)",
                .spurious,
                rule: alert.rule,
                what: "no expected alert accounts for them"
            )
        }
    }

    private mutating func add(_ alert: ObservedAlert, to name: String, _ finding: Finding, rule: String?, what: String)
    {
        if let position = groups.firstIndex(where: { $0.name == name }) {
            groups[position].alerts.append(alert)
        } else {
            groups.append(Group(name: name, finding: finding, rule: rule, alerts: [alert], what: what))
        }
    }

    /// One failed check per group, in the order the groups were first met.
    var checks: [Check] {
        groups.map { group in
            let first = group.alerts[0]
            let last = group.alerts[group.alerts.count - 1]
            var detail =
                "\(group.alerts.count) alert(s), \(group.what); first: alert \(first.alertID) at "
                + Verdict.iso(first.raisedAt)
            if group.alerts.count > 1 { detail += ", last: alert \(last.alertID) at \(Verdict.iso(last.raisedAt))" }
            return Check(
                kind: .noOtherAlerts,
                name: group.name,
                rule: group.rule,
                finding: group.finding,
                detail: detail
            )
        }
    }
}
