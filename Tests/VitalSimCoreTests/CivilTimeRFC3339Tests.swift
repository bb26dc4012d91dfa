import VitalSimCore
import XCTest

/// FHIR `dateTime` / RFC 3339 parsing: offsets, fractions of any length, and rejections.
final class CivilTimeRFC3339Tests: XCTestCase {
    func testOffsetsAndFractions() {
        let utc: Int64 = 1_730_990_098_000  // 2024-11-07T14:34:58Z
        XCTAssertEqual(CivilTime.unixMilliseconds(rfc3339: "2024-11-07T14:34:58Z"), utc)
        XCTAssertEqual(CivilTime.unixMilliseconds(rfc3339: "2024-11-07T16:34:58+02:00"), utc)
        XCTAssertEqual(CivilTime.unixMilliseconds(rfc3339: "2024-11-07T09:04:58-05:30"), utc)
        XCTAssertEqual(CivilTime.unixMilliseconds(rfc3339: "2024-11-07T14:34:58.5Z"), utc + 500)
        XCTAssertEqual(CivilTime.unixMilliseconds(rfc3339: "2024-11-07T14:34:58.123456789+00:00"), utc + 123)
        XCTAssertEqual(
            CivilTime.unixMilliseconds(rfc3339: "2024-11-08T00:04:58+09:30"),
            utc,
            "an offset that crosses midnight"
        )
    }

    func testRejections() {
        for text in [
            "2024-11-07T14:34:58", "2024-11-07 14:34:58Z", "2024-11-07T14:34:58.Z", "2024-11-07T14:34:58+2:00",
            "2024-11-07T14:34:58+-5:00", "2024-11-07T14:34:58+24:00", "2024-02-30T14:34:58Z", "2024-11-07T24:00:00Z",
            "2024-11-07T14:34:58+02:00x", "2024-11-07",
        ] {
            XCTAssertNil(CivilTime.unixMilliseconds(rfc3339: text), text)
        }
    }
}
