/// What the checks about expected alerts call each of them, in order: `RULE patient P`, and
/// `RULE patient P #N` for the Nth expectation of the same rule and patient.
package struct AlertSubjects: Sendable {
    /// One name per alert, in the alerts' order.
    package let names: [String]

    /// The subjects of `alerts`, given by rule and patient in the golden file's order.
    package init(_ alerts: [(rule: String, patient: String)]) {
        var occurrences: [String: Int] = [:]
        names = alerts.map { alert in
            let subject = "\(alert.rule) patient \(alert.patient)"
            occurrences[subject, default: 0] += 1
            let count = occurrences[subject] ?? 1
            return count > 1 ? subject + " #\(count)" : subject
        }
    }
}
