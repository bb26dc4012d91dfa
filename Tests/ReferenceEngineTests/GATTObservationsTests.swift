import Bluetooth
import ReferenceEngine
import VitalSimCore
import XCTest

/// How the reference SUT's raw-GATT ingestion stamps CGM records: session start (CGM Session Start
/// Time, local time less time zone and DST offset) plus the record's time offset in minutes.
final class GATTObservationsTests: XCTestCase {
    func cgm(offset: UInt16) throws -> [UInt8] {
        try CGMMeasurement(records: [
            CGMRecord(glucose: SFloat(mantissa: 112, exponent: 0)!, timeOffset: offset, hasCRC: true)
        ]).encode()
    }

    func testCGMRecordIsStampedWithSessionStartPlusTimeOffset() throws {
        // 22:00 local at UTC+1 (time zone +4 quarter hours), summer time (+1 h, DST offset 4): 20:00 UTC.
        let start = try XCTUnwrap(DateTime(iso8601: "2024-07-01T22:00:00"))
        let session = try CGMSessionStartTime.decode(
            try CGMSessionStartTime(start: start, timeZone: 4, dstOffset: 4).encode()
        )
        let utc = try XCTUnwrap(CivilTime(iso8601: "2024-07-01T20:00:00Z")).unixMilliseconds
        XCTAssertEqual(session.unixMilliseconds, utc)
        let observation = try XCTUnwrap(
            GATTObservations.observation(
                uuid: CGMMeasurement.uuid,
                bytes: try cgm(offset: 125),
                patientID: "p",
                deviceID: "c",
                readingID: "r",
                receivedAt: 42,
                cgmSessionStart: session.unixMilliseconds
            )
        )
        XCTAssertEqual(observation.time, utc + 125 * 60_000)
        XCTAssertEqual(observation.values[.cgm], 112)
        // Without a session start the record is stamped on receipt.
        let received = try XCTUnwrap(
            GATTObservations.observation(
                uuid: CGMMeasurement.uuid,
                bytes: try cgm(offset: 125),
                patientID: "p",
                deviceID: "c",
                readingID: "r",
                receivedAt: 42
            )
        )
        XCTAssertEqual(received.time, 42)
    }

    func testUnknownSessionStartGivesNoTime() throws {
        XCTAssertNil(
            CGMSessionStartTime(start: DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0))
                .unixMilliseconds
        )
        let start = try XCTUnwrap(DateTime(iso8601: "2024-07-01T22:00:00"))
        XCTAssertNil(CGMSessionStartTime(start: start, timeZone: -128).unixMilliseconds, "time zone unknown")
        XCTAssertNil(CGMSessionStartTime(start: start, dstOffset: 255).unixMilliseconds, "DST offset unknown")
    }
}
