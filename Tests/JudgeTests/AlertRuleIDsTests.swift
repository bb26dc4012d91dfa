import Judge
import RunRecord
import Testing

/// The rule ids profiles, conformance statements and observed alerts are named by are exactly the
/// rules the oracle derives, in its order.
@Test func theRuleVocabularyIsTheOraclesRules() {
    #expect(AlertRuleIDs.all == Oracle.derivedRuleIDs)
    #expect(Set(AlertRuleIDs.all).count == AlertRuleIDs.all.count)
}
