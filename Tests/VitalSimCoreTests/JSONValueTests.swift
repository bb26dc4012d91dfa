import Foundation
import VitalSimCore
import XCTest

/// Compact JSON text: strings escaped as JSON requires, whatever byte needs it and wherever it sits.
final class JSONValueTests: XCTestCase {
    func testPlainStringsAreWrittenWhole() {
        XCTAssertEqual(JSONValue.string("2024-11-04T07:00:00.000Z").serialized(), "\"2024-11-04T07:00:00.000Z\"")
        XCTAssertEqual(JSONValue.string("").serialized(), "\"\"")
        XCTAssertEqual(JSONValue.string("Ödem · 37,5 °C").serialized(), "\"Ödem · 37,5 °C\"")
    }

    func testEveryByteThatNeedsAnEscapeIsEscaped() throws {
        XCTAssertEqual(JSONValue.string("a\"b").serialized(), #""a\"b""#)
        XCTAssertEqual(JSONValue.string("a\\b").serialized(), #""a\\b""#)
        XCTAssertEqual(JSONValue.string("line\nnext\ttab\r").serialized(), #""line\nnext\ttab\r""#)
        XCTAssertEqual(JSONValue.string("\u{1}x\u{1F}").serialized(), #""\u0001x\u001f""#)
        // A NUL stops C string functions: it is escaped all the same, and what follows it too.
        XCTAssertEqual(JSONValue.string("a\u{0}b\"").serialized(), #""a\u0000b\"""#)
        // Keys are quoted alike, and the text parses back to the same strings.
        let value = JSONValue.object([("k\"\n", .string("\u{0}\u{7}é\\"))])
        let parsed = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(value.serialized().utf8)) as? [String: String]
        )
        XCTAssertEqual(parsed, ["k\"\n": "\u{0}\u{7}é\\"])
    }
}
