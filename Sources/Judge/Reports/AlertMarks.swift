import RunRecord
import VitalSimCore

/// How the HTML report marks each alert and expected window, as the judge paired them
/// (``AlertMatching``): a listed alert is `matched` (in its window), `early`, `late`, `duplicate`,
/// `spurious` or `unmapped`; an expected window that no alert met is `missed`. Each mark sits only
/// on the charts of the signals its rule reads.
struct AlertMarks {
    /// The class of each observed alert, by alert id.
    private(set) var alerts: [String: String] = [:]
    /// The class of each expectation's window (`met` or `missed`), by index in the golden file.
    private(set) var windows: [Int: String] = [:]

    init(expected: [GoldenFile.ExpectedAlert], observed all: [ObservedAlert]) {
        let observed = all.filter { $0.unmapped == nil || $0.onlySeverityUnmapped }
        let pairing = AlertMatching.match(expected, observed)
        var paired: Set<Int> = []
        for (i, e) in expected.enumerated() {
            guard let j = pairing[i] else {
                windows[i] = "missed"
                continue
            }
            paired.insert(j)
            windows[i] = "met"
            let raisedAt = observed[j].raisedAt
            alerts[observed[j].alertID] = raisedAt < e.from ? "early" : raisedAt > e.to ? "late" : "matched"
        }
        let met = expected.indices.filter { pairing[$0] != nil }.map { expected[$0] }
        for (j, a) in observed.enumerated() where !paired.contains(j) {
            let repeats = met.contains {
                $0.patientID == a.patientID && $0.rule == a.rule
                    && AlertMatching.distance(a.raisedAt, from: $0.from, to: $0.to) <= AlertMatching.pairingBound
            }
            alerts[a.alertID] = repeats ? "duplicate" : "spurious"
        }
        for a in all where a.unmapped != nil && !a.onlySeverityUnmapped { alerts[a.alertID] = "unmapped" }
    }

    /// Whether an alert of `rule` belongs on the chart of a series carrying `signals`: the rule
    /// reads one of them, or any signal (a data gap), or it is a rule the oracle does not know.
    static func belongs(_ rule: String, on signals: Set<Signal>) -> Bool {
        guard let scope = Oracle.evidenceScope(rule: rule), let read = scope.signals else { return true }
        return !read.isDisjoint(with: signals)
    }
}
