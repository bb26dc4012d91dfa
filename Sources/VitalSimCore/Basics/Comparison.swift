/// A comparison with an explicit boundary operator (`<` and `<=` differ at the boundary), as rule
/// files, docs/clinical.md and the oracle write it. Words only: the reference SUT's engine and
/// the oracle each evaluate it with their own code, so that one cannot hide a mistake of the other.
public enum Comparison: String, Sendable, CaseIterable {
    /// `<`: strictly below the threshold.
    case less = "<"
    /// `<=`: at or below the threshold.
    case lessOrEqual = "<="
    /// `>`: strictly above the threshold.
    case greater = ">"
    /// `>=`: at or above the threshold.
    case greaterOrEqual = ">="
}
