import RunRecord
import Traffic

extension ConformanceStatement {
    /// Why `check` is not applicable to this SUT; nil when it is.
    package func notApplicable(_ check: Check) -> String? {
        let aboutAlerts: Set<CheckKind> = [.alert, .noOtherAlerts, .evidence, .recipients, .careAction]
        if !listsAlerts, aboutAlerts.contains(check.kind) {
            return "the SUT profile says the SUT has no alert source (alerts: none)"
        }
        if let refusals, let level = check.refusalLevel, !refusals.contains(level),
            check.kind == .validation || check.kind == .refusedField
        {
            return "the conformance statement does not claim refusals of \(level.rawValue) (conformance.refusals)"
        }
        switch check.kind {
        case .alert:
            guard let rules, let rule = check.rule, !rules.contains(rule) else { return nil }
            return "the conformance statement does not claim rule \(rule)"
        case .careAction, .recipients:
            // An action on, or a notification of, an alert the SUT was never to raise.
            guard let rules, let rule = check.rule, !rules.contains(rule) else { return nil }
            return "the conformance statement does not claim rule \(rule), whose alert this is about"
        case .refusedField where !namesRefusedField:
            return "the conformance statement says refusals do not name the refused field"
        default:
            return nil
        }
    }
}
