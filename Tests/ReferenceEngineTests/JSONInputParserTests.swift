import ReferenceEngine
import XCTest

/// The reference SUT's strict JSON parser against hostile bodies: duplicate keys named,
/// depth refused while parsing, UTF-8 only, numbers and strings by RFC 8259's grammar.
final class JSONInputParserTests: XCTestCase {
    func parse(_ text: String, depth: Int = 8) -> Result<JSONInput, ValidationFailure> {
        parse(Array(text.utf8), depth: depth)
    }

    func parse(_ bytes: [UInt8], depth: Int = 8) -> Result<JSONInput, ValidationFailure> {
        do throws(ValidationFailure) { return .success(try JSONInput.parse(bytes, maxDepth: depth)) } catch {
            return .failure(error)
        }
    }

    func failure(
        _ text: String,
        depth: Int = 8,
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> ValidationFailure? {
        failure(Array(text.utf8), depth: depth, file: file, line: line)
    }

    func failure(
        _ bytes: [UInt8],
        depth: Int = 8,
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> ValidationFailure? {
        guard case let .failure(f) = parse(bytes, depth: depth) else {
            XCTFail("accepted \(String(decoding: bytes.prefix(80), as: UTF8.self))", file: file, line: line)
            return nil
        }
        XCTAssertEqual(f.status, 400, file: file, line: line)
        return f
    }

    func testValuesKeepTheirJSONTypes() throws {
        let parsed = try parse(#" {"a": [1, -0, 2.5, 1e2, "x\n\u00e9\ud83d\ude00", true, false, null], "b": {}} "#)
            .get()
        XCTAssertEqual(
            parsed,
            .object([
                "a": .array([
                    .integer(1), .integer(0), .number(2.5), .number(100), .string("x\né😀"), .bool(true), .bool(false),
                    .null,
                ]),
                "b": .object([:]),
            ])
        )
        XCTAssertEqual(try parse("9223372036854775807").get(), .integer(.max))
        XCTAssertEqual(
            try parse("9223372036854775808").get(),
            .number(9_223_372_036_854_775_808),
            "past Int64: a double"
        )
    }

    func testDuplicateKeysAreRefusedNamingTheKey() {
        let flat = failure(#"{"value": 72, "unit": "/min", "value": 9999}"#)
        XCTAssertEqual(flat?.field, "value")
        XCTAssertTrue(flat?.message.contains("duplicate key \"value\" at byte 30") ?? false, flat?.message ?? "")
        let nested = failure(#"{"valueQuantity": {"value": 72, "value": 9999}}"#)
        XCTAssertEqual(nested?.field, "valueQuantity.value")
        let inArray = failure(#"[{"patientId": "501"}, {"patientId": "501", "patientId": "502"}]"#)
        XCTAssertEqual(inArray?.field, "[1].patientId")
        // Escapes that spell the same key are the same key.
        XCTAssertEqual(failure(#"{"value": 1, "val\u0075e": 2}"#)?.field, "value")
    }

    func testDepthIsRefusedWhileParsing() {
        // 200,000 levels: a recursive parser without a limit would overflow its stack.
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let failed = failure(deep)
        XCTAssertTrue(
            failed?.message.contains("nested deeper than 8 levels (at byte 8)") ?? false,
            failed?.message ?? ""
        )
        XCTAssertNoThrow(try parse(String(repeating: "[", count: 8) + String(repeating: "]", count: 8)).get())
        XCTAssertNotNil(failure(String(repeating: "{\"a\":", count: 9) + "1" + String(repeating: "}", count: 9)))
        XCTAssertNoThrow(
            try parse(String(repeating: "{\"a\":", count: 8) + "1" + String(repeating: "}", count: 8)).get()
        )
    }

    func testOnlyUTF8IsAccepted() {
        let utf16 = Array(#"{"a":1}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        XCTAssertTrue(failure(utf16)?.message.contains("UTF-16") ?? false)
        XCTAssertTrue(failure([0xFF, 0xFE] + utf16)?.message.contains("UTF-16") ?? false)
        XCTAssertTrue(
            failure([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))?.message.contains("byte order mark") ?? false
        )
        let latin1 = failure([0x22, 0x63, 0x61, 0x66, 0xE9, 0x22])
        XCTAssertTrue(latin1?.message.contains("not UTF-8") ?? false, latin1?.message ?? "")
        XCTAssertNotNil(failure([0x22, 0xED, 0xA0, 0x80, 0x22]), "an encoded surrogate is not UTF-8")
        XCTAssertNotNil(failure(#""\ud800""#), "a lone high surrogate")
        XCTAssertNotNil(failure(#""\udc00""#), "a lone low surrogate")
        XCTAssertNotNil(failure(#""\ud800\u0041""#), "a high surrogate and no low one")
    }

    func testGrammarIsRFC8259() {
        let refused = [
            "", " ", "{", "[1,]", "{\"a\":1,}", "{a:1}", "{'a':1}", "01", "1.", ".5", "-", "1e", "+1", "NaN",
            "Infinity", "tru",
            "nul", "\"a", "\"\\x\"", "\"\\u12\"", "1 2", "{\"a\":1}}", "[1]x", "\"tab\there\"", "1e400", "-1e400",
        ]
        for text in refused {
            if case let .success(v) = parse(text) { XCTFail("accepted \(text.debugDescription) as \(v)") }
        }
        let raw = failure("\"a\u{01}b\"")
        XCTAssertTrue(raw?.message.contains("control character byte 0x1") ?? false, raw?.message ?? "")
        let trailing = failure(#"{"a": 1} {"a": 2}"#)
        XCTAssertTrue(
            trailing?.message.contains("'{' after the JSON value at byte 9") ?? false,
            trailing?.message ?? ""
        )
        let long = failure(String(repeating: "1", count: 101))
        XCTAssertTrue(long?.message.contains("at most 100") ?? false, long?.message ?? "")
        XCTAssertEqual(try parse("1e-400").get(), .number(0), "underflow is zero, as IEEE 754 rounds it")
    }

    func testIdentifiersArePrintableAndBounded() {
        XCTAssertNoThrow(try PayloadValidation.identifier("run-7f3a/p001/hr-000123", field: "readingId"))
        XCTAssertNoThrow(try PayloadValidation.identifier(String(repeating: "é", count: 128), field: "readingId"))
        for bad in ["", String(repeating: "a", count: 129), "a\u{0}b", "a\nb", "a\u{7F}", "a\u{85}"] {
            do throws(ValidationFailure) {
                _ = try PayloadValidation.identifier(bad, field: "readingId")
                XCTFail("accepted \(bad.debugDescription)")
            } catch {
                XCTAssertEqual(error.field, "readingId")
            }
        }
    }

    func testHostileObservationsAreRefusedNamingTheField() throws {
        let now: Int64 = 1_730_937_600_000
        func refusal(_ text: String) -> ValidationFailure? {
            do throws(ValidationFailure) {
                _ = try PayloadValidation.observation(try JSONInput.parse(Array(text.utf8), maxDepth: 8), now: now)
                return nil
            } catch { return error }
        }
        func body(id: String = "r1", at time: String = "2024-11-07T00:00:00Z") -> String {
            #"{"readingId": "\#(id)", "patientId": "501", "deviceId": "d", "kind": "heart-rate", "value": 72, "unit": "/min", "timestamp": "\#(time)"}"#
        }
        XCTAssertNil(refusal(body()))
        XCTAssertEqual(refusal(body(id: #"r\u0000"#))?.field, "readingId")
        XCTAssertEqual(refusal(body(id: String(repeating: "x", count: 250_000)))?.field, "readingId")
        let year0 = refusal(body(at: "0000-01-01T00:00:00Z"))
        XCTAssertEqual(year0?.field, "timestamp")
        XCTAssertTrue(year0?.message.contains("before 1970") ?? false, year0?.message ?? "")
    }
}
