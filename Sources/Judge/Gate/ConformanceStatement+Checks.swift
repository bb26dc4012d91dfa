import RunRecord

extension ConformanceStatement {
    /// Why `check` is not applicable to this SUT; nil when it is.
    package func notApplicable(_ check: Check) -> String? {
        switch check.kind {
        case .alert:
            guard let rules, let rule = check.rule, !rules.contains(rule) else { return nil }
            return "the conformance statement does not claim rule \(rule)"
        case .refusedField where !namesRefusedField:
            return "the conformance statement says refusals do not name the refused field"
        default:
            return nil
        }
    }
}
