/// A shipped alert rule in words, for the requirements catalogue (docs/requirements.md): what the
/// reference SUT's rule file says of it, without the engine that evaluates it.
package struct RuleDescription: Sendable, Equatable {
    /// The rule id (`hr.tachycardia`).
    package var id: String
    /// Where its threshold comes from (a guideline and a section of docs/clinical.md).
    package var source: String
    /// The signal, operator and threshold, or what else decides it (`heart-rate > 100`).
    package var condition: String
    /// How long the condition must hold (`10m`); nil when at once.
    package var persistence: String?
    /// How far back inside the normal range a reading must be to re-arm it; nil when not set.
    package var rearm: String?
    /// `low`, `medium` or `high`.
    package var severity: String
    /// The clinical profiles it applies to.
    package var profiles: [String]

    /// A description with every field given.
    package init(
        id: String,
        source: String,
        condition: String,
        persistence: String?,
        rearm: String?,
        severity: String,
        profiles: [String]
    ) {
        self.id = id
        self.source = source
        self.condition = condition
        self.persistence = persistence
        self.rearm = rearm
        self.severity = severity
        self.profiles = profiles
    }
}
