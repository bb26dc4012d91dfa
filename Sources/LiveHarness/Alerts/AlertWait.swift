import Judge
import RunRecord
import SUTAdapter

/// The alerts a run expects, waited for once its last reading is answered: while an expected alert is
/// not yet listed by the SUT, the alert API is polled on, up to the reading → alert budget plus a
/// grace period (`--alert-wait`). An alert that arrives after its budget is then seen, and judged over
/// budget (and early or late by its time stamp), rather than missed; one still absent is missed, and
/// its finding says how long it was waited for.
package struct AlertWait: Sendable {
    /// The expectations (golden file, or the oracle's when recording).
    package var expected: [GoldenFile.ExpectedAlert]
    /// The reading → alert budget (the largest limit a golden file sets on `reading-to-alert`; zero without one).
    package var budget: Duration
    /// The tightest reading → alert limit the golden file sets (zero without one): alert polls are
    /// never so far apart that they blur it (the runner's `pollPause`).
    package var tightest: Duration = .zero
    /// How long past the budget an absent expected alert is still waited for.
    package var grace: Duration
    /// How messages name the setting behind ``grace``.
    package var names = SettingNames.words

    /// The longest wait, from the moment the last reading is answered.
    package var bound: Duration { budget + grace }

    /// Waits for a golden file's alerts, bounded by its reading → alert budget plus `grace`.
    package init(golden: GoldenFile, grace: Duration) {
        expected = golden.alerts
        let limits = golden.budgets.filter { $0.path == .readingToAlert }.flatMap { $0.limits.map(\.milliseconds) }
        budget = .milliseconds(Int64((limits.max() ?? 0).rounded(.up)))
        tightest = .milliseconds(Int64((limits.min() ?? 0).rounded(.down)))
        self.grace = grace
    }

    /// Waits, while recording, for the alerts the oracle derives, within the default tolerances of a
    /// recorded golden file; there is no budget yet, so only `grace` bounds the wait.
    package init(oracle: [OracleAlert], grace: Duration) {
        expected = oracle.map {
            GoldenFile.ExpectedAlert(
                patientID: $0.patientID,
                rule: $0.rule,
                severity: $0.severity,
                from: $0.raisedAt - GoldenFile.defaultEarly,
                to: $0.raisedAt + GoldenFile.defaultLate
            )
        }
        budget = .zero
        self.grace = grace
    }

    /// Expectations no observed alert pairs with yet (as the judge pairs them).
    package func pending(_ observed: [ObservedAlert]) -> [GoldenFile.ExpectedAlert] {
        let pairing = AlertMatching.match(expected, observed)
        return expected.indices.filter { pairing[$0] == nil }.map { expected[$0] }
    }

    /// "2 × bp.hypertensive-crisis for patient 503, hr.tachycardia for patient 501" (golden-file order).
    package static func describe(_ pending: [GoldenFile.ExpectedAlert]) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for e in pending {
            let key = "\(e.rule) for patient \(e.patientID)"
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        return order.map { counts[$0] == 1 ? $0 : "\(counts[$0] ?? 0) × \($0)" }.joined(separator: ", ")
    }

    /// What the bound is made of, for messages: "reading → alert budget 1 s + alert wait 30 s" (the
    /// command line names its flag: "+ --alert-wait 30 s").
    package var boundReason: String {
        budget > .zero
            ? "reading → alert budget \(Self.seconds(budget)) + \(names[.alertWait]) \(Self.seconds(grace))"
            : "\(names[.alertWait]) \(Self.seconds(grace))"
    }

    /// A duration for messages, to a tenth of a second: "1 s", "2.5 s".
    static func seconds(_ d: Duration) -> String {
        let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        let tenths = (ms + 50) / 100
        return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
    }
}
