import Judge
import ReferenceEngine
import Testing
import VitalSimCore

/// The reference SUT's rules file and the judge's oracle both encode docs/clinical.md, each
/// on its own (neither reads the other). For every shipped rule, one test case: the oracle derives
/// it, with the same severity and patient profiles, and reads the same thresholds, operators,
/// windows, persistence and re-arm margins — so an edit to one that the other does not follow
/// fails here, not as a puzzling verdict in a run.
struct OracleAgreementTests {
    static let ruleIDs: [String] = ((try? RuleSetLoader.defaultRules()) ?? []).map(\.id)

    @Test func theRulesFileShipsEveryRule() {
        #expect(Self.ruleIDs.count == 31)
        #expect(Set(Self.ruleIDs) == Set(Oracle.derivedRuleIDs), "rules one side has and the other lacks")
    }

    @Test(arguments: ruleIDs)
    func theOracleReadsTheRuleAsTheReferenceSUTDoes(_ id: String) throws {
        let rule = try #require(try RuleSetLoader.defaultRules().first { $0.id == id })
        if let oracle = Oracle.rules.first(where: { $0.id == id }) {
            #expect(oracle.severity == rule.severity)
            #expect(oracle.profiles == Set(rule.profiles))
            #expect(oracle.persistence == rule.persistence)
            #expect(oracle.rearm == rule.rearmMargin)
            guard case let .threshold(conditions, matchAll) = rule.kind else {
                Issue.record("\(id): a threshold rule for the oracle, \(rule.kind) in the rules file")
                return
            }
            #expect(!matchAll, "the oracle raises when any one signal meets its limit")
            #expect(Set(conditions.map(\.signal)) == Set(oracle.signals))
            for condition in conditions {
                #expect(condition.comparison == oracle.comparison, "\(condition.signal)")
                #expect(condition.value == (oracle.limits[condition.signal] ?? oracle.value), "\(condition.signal)")
            }
        } else if let oracle = Oracle.windowedRules.first(where: { $0.id == id }) {
            #expect(oracle.severity == rule.severity)
            #expect(oracle.profiles == Set(rule.profiles))
            #expect(Self.sameKind(oracle.kind, rule), "\(id): the oracle reads \(oracle.kind), the SUT \(rule.kind)")
        } else {
            Issue.record("\(id): the oracle does not derive this rule")
        }
    }

    /// Whether the oracle's windowed rule reads what the rules file says.
    static func sameKind(_ kind: OracleWindowedRule.Kind, _ rule: AlertRule) -> Bool {
        switch (kind, rule.kind) {
        case let (.rate(s1, w1, c1, v1), .rate(s2, w2, c2, v2)): s1 == s2 && w1 == w2 && c1 == c2 && v1 == v2
        case let (.forecast(s1, l1, h1, c1, v1), .forecast(s2, l2, h2, c2, v2)):
            s1 == s2 && l1 == l2 && h1 == h2 && c1 == c2 && v1 == v2
        case let (.change(s1, w1, t1, c1, v1), .change(s2, w2, t2, c2, v2)):
            s1 == s2 && w1 == w2 && t1 == t2 && c1 == c2 && v1 == v2
        case let (.dailyTotalPerKg(s1, w1, c1, v1), .dailyTotalPerKg(s2, w2, c2, v2)):
            s1 == s2 && w1 == w2 && c1 == c2 && v1 == v2
        case let (.irregularRhythm(b1, p1, r1), .irregularRhythm(b2, p2, r2)): b1 == b2 && p1 == p2 && r1 == r2
        case let (.dataGap(w1), .dataGap(w2)): w1 == w2
        case let (.news2(score1, scale1, rearm), .news2(score2, _, scale2)):
            score1 == score2 && scale1 == scale2 && Double(rearm) == rule.rearmMargin
        case let (.symptomReport(signals), .report(conditions)): Set(signals) == Set(conditions.map(\.signal))
        case let (.symptomEscalation(s1, w1), .escalation(s2, w2)): Set(s1) == Set(s2) && w1 == w2
        case let (.fluctuation(s1, w1, n1, rearm), .fluctuation(s2, w2, n2, _)):
            s1 == s2 && w1 == w2 && n1 == n2 && rearm == rule.rearmMargin
        default: false
        }
    }
}
