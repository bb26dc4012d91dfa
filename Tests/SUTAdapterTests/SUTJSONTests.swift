import Foundation
import Testing

@testable import SUTAdapter

/// A SUT's JSON is parsed only within the harness's value and depth bounds, counted without
/// parsing; what the bounds let through parses as Foundation would.
@Suite struct SUTJSONTests {
    @Test func ordinaryAnswersParse() throws {
        let alerts = Array(#"[{"alertId":"a\"1","evidence":["x,y:[z]"],"n":-1.5e3,"ok":true,"none":null}]"#.utf8)
        let document = try SUTJSON.document(alerts)
        let first = try #require((document as? [[String: Any]])?.first)
        #expect(first["alertId"] as? String == #"a"1"#)
        #expect(SUTJSON.shapeProblem(alerts) == nil)
        #expect(try SUTJSON.document(Array("42".utf8)) as? Int == 42, "a bare scalar")
        #expect(try SUTJSON.document(Array("[1]".utf8)) is [Any])
    }

    @Test func deepNestingIsRefusedBeforeParsing() {
        let deep = Array((String(repeating: "[", count: 500) + String(repeating: "]", count: 500)).utf8)
        #expect(throws: SUTJSON.Problem.tooDeep) { try SUTJSON.document(deep) }
        let limit = SUTJSON.depthLimit
        let fits = Array((String(repeating: "[", count: limit) + String(repeating: "]", count: limit)).utf8)
        #expect(SUTJSON.shapeProblem(fits) == nil)
        // Brackets inside strings are text, not nesting.
        let quoted = Array(("[\"" + String(repeating: "[", count: 500) + "\"]").utf8)
        #expect(SUTJSON.shapeProblem(quoted) == nil)
    }

    @Test func tooManyValuesAreRefusedBeforeParsing() {
        let count = SUTJSON.valueBudget
        let zeros = Array(("[" + Array(repeating: "0", count: count).joined(separator: ",") + "]").utf8)
        #expect(throws: SUTJSON.Problem.tooManyValues) { try SUTJSON.document(zeros) }
        let empties = Array(("[" + Array(repeating: "[]", count: count).joined(separator: ",") + "]").utf8)
        #expect(SUTJSON.shapeProblem(empties) == .tooManyValues)
        let under = Array(("[" + Array(repeating: "0", count: count - 1).joined(separator: ",") + "]").utf8)
        #expect(SUTJSON.shapeProblem(under) == nil, "the array and its items: exactly the budget")
        #expect(throws: SUTJSON.Problem.notJSON) { try SUTJSON.document(Array("{oops".utf8)) }
    }
}
