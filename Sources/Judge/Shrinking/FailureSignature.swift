import Foundation

/// What makes two failed checks "the same failure" for `vitalsim shrink`: the finding and what the
/// check is about (rule and patient, request kind and device, budget), without what shrinking
/// changes (an alert's time or occurrence number, a reading's position in its device's sequence).
package struct FailureSignature: Hashable, Sendable, CustomStringConvertible {
    /// The finding (`missed`, `early`, `spurious`, `validation-mismatch`, …).
    package var finding: String
    /// The check's name without times, occurrence numbers and reading positions, e.g.
    /// `alert glucose.level2-low patient 504` or `rejects 511/cgm-511`.
    package var subject: String

    package init(finding: String, subject: String) {
        self.finding = finding
        self.subject = subject
    }

    /// The signature of a failed check; nil for a check that passed.
    package init?(_ check: Check) {
        guard let finding = check.finding else { return nil }
        self.finding = finding.rawValue
        var subject = check.name
        if let at = subject.range(of: " at ", options: .backwards),
            subject.hasPrefix("unexpected alert ") || subject.hasPrefix("SUT alert ")
        {
            subject = String(subject[..<at.lowerBound])
        }
        if let hash = subject.range(of: " #", options: .backwards), subject[hash.upperBound...].allSatisfy(\.isNumber) {
            subject = String(subject[..<hash.lowerBound])
        }
        let fieldSuffix = " naming its field"
        let namesField = subject.hasSuffix(fieldSuffix)
        if namesField { subject.removeLast(fieldSuffix.count) }
        if subject.hasPrefix("rejects ") || subject.hasPrefix("accepts "), let slash = subject.lastIndex(of: "/"),
            subject[subject.index(after: slash)...].allSatisfy({ $0.isNumber || $0.isLetter || $0 == "-" }),
            subject[..<slash].contains("/")
        {
            subject = String(subject[..<slash])
        }
        self.subject = subject + (namesField ? fieldSuffix : "")
    }

    /// As the console reports a finding: `missed alert hr.tachycardia patient 501`.
    package var description: String { "\(finding) \(subject)" }

    /// The distinct failures of a verdict, in its order.
    package static func failures(of verdict: Verdict) -> [FailureSignature] {
        var seen: Set<FailureSignature> = []
        return verdict.checks.compactMap(FailureSignature.init).filter { seen.insert($0).inserted }
    }
}
