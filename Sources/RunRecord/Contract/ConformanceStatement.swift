import Traffic

/// What a SUT claims to implement (the SUT profile's `conformance:`), in the manner of a Bluetooth
/// PICS or an Inferno suite's options: checks of what it does not claim are `not-applicable` —
/// reported, never failed. An alert the SUT raises is judged whatever it claims (a spurious alert
/// stays spurious).
package struct ConformanceStatement: Sendable, Equatable {
    /// The VitalSim rule ids the SUT claims to raise; nil: every rule.
    package var rules: Set<String>?
    /// Whether the SUT's refusals name the refused field (a SHOULD); false makes those checks
    /// not applicable.
    package var namesRefusedField = true
    /// The reading kinds the SUT ingests (`VitalKind` raw values); nil: every kind. Readings of
    /// other kinds are not sent, and their refusal checks are skipped.
    package var kinds: Set<String>?
    /// The push channels the SUT delivers alerts on besides its alert list (`sse`, `mqtt`,
    /// `webhook`): a run observes them unless `--observe` says otherwise.
    package var channels: [PushChannel] = []
    /// The kinds of invalid reading the SUT claims to refuse (`conformance.refusals`); nil: all.
    /// A plain FHIR store refuses what breaks FHIR's structure, not what is implausible for RPM.
    package var refusals: Set<RefusalLevel>?
    /// Whether the SUT has an alert source at all; false (`alerts: none`) makes every check about
    /// alerts not applicable: none expected, none unexpected, no evidence, recipients or care action.
    package var listsAlerts = true

    /// Everything claimed: the statement of a profile without `conformance:`.
    package init(rules: Set<String>? = nil, namesRefusedField: Bool = true) {
        self.rules = rules
        self.namesRefusedField = namesRefusedField
    }

    /// Lines for `vitalsim doctor` and reports: what is claimed, and what that leaves out of `known`.
    package func lines(knownRules known: [String]) -> [String] {
        var out: [String] = []
        if !listsAlerts {
            out.append("alert source: none (alerts: none), so no rule is claimed and alert checks are not-applicable")
        } else if let rules {
            let claimed = known.filter(rules.contains)
            let unclaimed = known.filter { !rules.contains($0) }
            out.append("rules claimed (\(claimed.count) of \(known.count)): " + claimed.joined(separator: ", "))
            if !unclaimed.isEmpty {
                out.append(
                    "not claimed, so their expected alerts are not-applicable: " + unclaimed.joined(separator: ", ")
                )
            }
        } else {
            out.append("rules claimed: all \(known.count)")
        }
        if let kinds {
            out.append(
                "reading kinds claimed: " + kinds.sorted().joined(separator: ", ")
                    + "; readings of other kinds are not sent"
            )
        } else {
            out.append("reading kinds claimed: all")
        }
        out.append(
            channels.isEmpty
                ? "push channels claimed: none (only the alert list is read)"
                : "push channels claimed: " + channels.map(\.rawValue).joined(separator: ", ")
                    + " (observed by default: every alert must arrive on each)"
        )
        if let refusals {
            out.append(
                "refusals claimed: " + refusals.sorted().map(\.rawValue).joined(separator: ", ")
                    + "; refusals of other invalid readings are not-applicable"
            )
        }
        out.append(
            namesRefusedField
                ? "refusals name the refused field (a SHOULD: a finding warns unless --strict)"
                : "refusals do not name the refused field: those checks are not-applicable"
        )
        return out
    }
}
