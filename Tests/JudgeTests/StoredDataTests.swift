import Judge
import RunRecord
import Traffic
import VitalSimCore
import XCTest

/// The stored-data check: acknowledged readings read back kept, unaltered, and counted alike.
final class StoredDataTests: XCTestCase {
    typealias Entry = StoredDataExpectations.Entry

    /// 2024-11-07T10:00:00Z.
    let t0: Int64 = 1_730_973_600_000

    func entries() -> [Entry] {
        [
            Entry(id: "501/cuff/1", time: t0, values: [.systolic: 150, .diastolic: 95], kind: .bloodPressure),
            Entry(id: "501/meter/1", time: t0 + 60_000, values: [.glucose: 100], kind: .glucose),
            Entry(id: "501/scale/1", time: t0 + 120_000, values: [.weight: 72.345], kind: .weight),
        ]
    }

    func stored(_ entry: Entry) -> StoredReading { StoredReading(id: entry.id, time: entry.time, values: entry.values) }

    func checks(
        _ readings: [StoredReading],
        counts: [String: Int]? = nil,
        entries: [Entry]? = nil,
        linked: Set<String> = []
    ) -> [Check] {
        var readBack = StoredReadBack()
        readBack.readings["501"] = readings
        if let counts { readBack.counts = ["501": counts] }
        return StoredDataArea().storedDataChecks(
            StoredDataExpectations(byPatient: ["501": entries ?? self.entries()], linkedDevices: linked),
            readBack
        )
    }

    func finding(_ checks: [Check], _ name: String) -> Finding? {
        guard let check = checks.first(where: { $0.name.hasSuffix(name) }) else {
            XCTFail("no check named …\(name) in \(checks.map(\.name))")
            return nil
        }
        return check.finding
    }

    func testEveryReadingKeptAsSentPasses() {
        let made = checks(entries().map(stored), counts: ["2024-11-07": 3, "2024-11": 3])
        XCTAssertEqual(made.map(\.kind), [.storedData, .storedData, .storedData, .storedData])
        XCTAssertTrue(made.allSatisfy(\.passed), made.map(\.detail).joined(separator: "\n"))
        XCTAssertEqual(made[0].detail, "all 3 acknowledged reading(s) read back")
        XCTAssertEqual(made[3].detail, "no acknowledged reading is held more than once")
    }

    /// A retry stored again, under its own id or one of the SUT's own with the same kind, device
    /// time and values, is `stored-twice`; a reading that matches nothing sent stays a note.
    func testAReadingHeldTwiceIsStoredTwice() {
        let sent = entries().map(stored)
        var sameID = sent
        sameID.append(sent[1])
        var ownID = sent
        ownID.append(StoredReading(id: "sut-own-17", time: sent[2].time, values: sent[2].values))
        for readings in [sameID, ownID] {
            let made = checks(readings)
            XCTAssertEqual(finding(made, "held once"), .storedTwice)
            let detail = made.first { $0.name.hasSuffix("held once") }?.detail ?? ""
            XCTAssertTrue(detail.contains("1 acknowledged reading(s) are held more than once"), detail)
            XCTAssertNil(finding(made, "kept"))
        }
        var other = sent
        other.append(StoredReading(id: "sut-own-18", time: sent[2].time + 3_600_000, values: sent[2].values))
        XCTAssertNil(finding(checks(other), "held once"), "another weighing an hour later is no retry")
        XCTAssertTrue(checks(other)[0].detail.contains("1 stored reading(s) match none the SUT acknowledged"))
    }

    /// A reading written as a plain FHIR create (`writes: create`) and held twice is what FHIR
    /// prescribes for a create sent again: said, not judged; one sent idempotently still fails.
    func testAPlainFHIRCreateHeldTwiceIsNotJudged() {
        let sent = entries().map(stored)
        var expected = StoredDataExpectations(byPatient: ["501": entries()])
        expected.plainCreates = ["501/meter/1"]
        var readBack = StoredReadBack()
        readBack.readings["501"] = sent + [sent[1]]
        let once = StoredDataArea().storedDataChecks(expected, readBack).first { $0.name.hasSuffix("held once") }
        XCTAssertEqual(once?.passed, true)
        XCTAssertTrue(once?.detail.contains("1 reading(s) sent as plain FHIR creates (writes: create)") ?? false)
        readBack.readings["501"] = sent + [sent[1], sent[2]]
        let twice = StoredDataArea().storedDataChecks(expected, readBack).first { $0.name.hasSuffix("held once") }
        XCTAssertEqual(twice?.finding, .storedTwice)
        XCTAssertTrue(twice?.detail.contains("first: 501/scale/1") ?? false, twice?.detail ?? "")
        // Which routes are idempotent: FHIR over HTTP only with conditional creates.
        var route = IngestionRoute(path: "/fhir", format: .fhirBundle(type: "batch"))
        XCTAssertTrue(route.isIdempotent)
        route.writes = .create
        XCTAssertFalse(route.isIdempotent)
        route.transport = .mqtt
        XCTAssertTrue(route.isIdempotent, "an MQTT message is no FHIR create")
        XCTAssertTrue(IngestionRoute(path: "/o", format: .vitalsimObservation).isIdempotent)
    }

    func testAReadingMissingIsLostAfterAcknowledgement() {
        let made = checks(entries().dropLast().map(stored), counts: ["2024-11-07": 2, "2024-11": 2])
        XCTAssertEqual(finding(made, "kept"), .lostAfterAck)
        XCTAssertTrue(made[0].detail.contains("1 of 3 acknowledged reading(s) are not held"), made[0].detail)
        XCTAssertTrue(made[0].detail.contains("501/scale/1 (weight at 2024-11-07T10:02:00.000Z)"), made[0].detail)
        XCTAssertEqual(finding(made, "per day and month"), .countMismatch)
        XCTAssertTrue(made[2].detail.contains("2024-11-07: the SUT counts 2, 3 acknowledged"), made[2].detail)
        XCTAssertNil(finding(made, "unaltered"), "what is held is as sent")
    }

    func testAValueOffByMoreThanHalfItsResolutionIsAltered() {
        var readings = entries().map(stored)
        readings[0].values[.diastolic] = 96
        readings[2].values[.weight] = 72.347  // within 0.0025 kg: the same weight
        let made = checks(readings)
        XCTAssertEqual(finding(made, "unaltered"), .altered)
        XCTAssertEqual(
            made.first { $0.name.hasSuffix("unaltered") }?.detail,
            "1 of 3 reading(s) read back differ from what was sent, first: 501/cuff/1: diastolic 95 mm[Hg] stored as 96 mm[Hg]"
        )
        readings[0].values[.diastolic] = 95.5
        XCTAssertNil(finding(checks(readings), "unaltered"), "half the resolution is the same value")
        readings[2].values[.weight] = 72.35
        XCTAssertEqual(
            finding(checks(readings), "unaltered"),
            .altered,
            "0.005 kg is the scale's resolution: another weight"
        )
    }

    func testASignalNotStoredOrInAnUnknownUnitIsAltered() {
        var readings = entries().map(stored)
        readings[0].values[.diastolic] = nil
        readings[1].units[.glucose] = "mg/L"
        let detail = checks(readings).first { $0.name.hasSuffix("unaltered") }?.detail ?? ""
        XCTAssertTrue(detail.contains("diastolic 95 mm[Hg] not stored"), detail)
        XCTAssertTrue(detail.contains("glucose stored as 100 mg/L, a unit VitalSim cannot convert to mg/dL"), detail)
    }

    func testOtherUnitsAreConvertedWithinTheirRounding() {
        var readings = entries().map(stored)
        readings[1].values[.glucose] = 5.6  // 100 mg/dL = 5.55 mmol/L, rounded to one decimal
        readings[1].units[.glucose] = "mmol/L"
        readings[2].values[.weight] = 159.5
        readings[2].units[.weight] = "[lb_av]"  // 72.345 kg = 159.49 lb
        XCTAssertNil(finding(checks(readings), "unaltered"))
        readings[1].values[.glucose] = 6.1  // 110 mg/dL
        XCTAssertEqual(finding(checks(readings), "unaltered"), .altered)
    }

    func testADeviceTimeMoreThanASecondOffIsAltered() {
        var readings = entries().map(stored)
        readings[1].time += 999
        XCTAssertNil(finding(checks(readings), "unaltered"), "GATT's Date Time has whole seconds")
        readings[1].time += 2
        let detail = checks(readings).first { $0.name.hasSuffix("unaltered") }?.detail ?? ""
        XCTAssertTrue(
            detail.contains("device time 2024-11-07T10:01:00.000Z stored as 2024-11-07T10:01:01.001Z"),
            detail
        )
    }

    func testReadingsWithoutIdsAreMatchedByKindAndTime() {
        // A SUT that names the readings itself: paired by kind and the nearest device time.
        var readings = entries().map { StoredReading(id: nil, time: $0.time + 400, values: $0.values) }
        readings.reverse()
        XCTAssertTrue(checks(readings).allSatisfy(\.passed))
        readings.removeFirst()  // the weight
        XCTAssertEqual(finding(checks(readings), "kept"), .lostAfterAck)
        // A glucose reading held at another time is no match for the one sent.
        readings[0].time += 5_000
        XCTAssertTrue(checks(readings)[0].detail.contains("2 of 3"), checks(readings)[0].detail)
    }

    func testSelfNamedReadingsAreMatchedByTimeAmongIdentifiedOnes() {
        var expected = entries()
        expected[1].selfNamed = true
        var readings = expected.map(stored)
        readings[1].id = "sut-assigned-17"
        let made = checks(readings, entries: expected)
        XCTAssertTrue(made.allSatisfy(\.passed), made.map(\.detail).joined(separator: "\n"))
        expected[1].selfNamed = false
        let strict = checks(readings, entries: expected)
        XCTAssertEqual(
            finding(strict, "kept"),
            .lostAfterAck,
            "an id the SUT changed is a loss when the payload carried one"
        )
        XCTAssertTrue(
            strict[0].detail.contains("1 stored reading(s) match none the SUT acknowledged (first: sut-assigned-17"),
            strict[0].detail
        )
    }

    func testReadingsOfLinkedDevicesAreNotJudgedAndTheirCountsSkipped() {
        var readings = entries().map(stored)
        readings.append(StoredReading(id: "501/hrm/gateway-3", time: t0, values: [.heartRate: 70]))
        let made = checks(readings, counts: ["2024-11-07": 4, "2024-11": 4], linked: ["501/hrm"])
        XCTAssertTrue(made.allSatisfy(\.passed))
        XCTAssertEqual(
            made[0].detail,
            "all 3 acknowledged reading(s) read back",
            "the gateway's reading is neither extra nor lost"
        )
        XCTAssertTrue(made[2].skipped)
    }

    func testCountsPerMonthAreCheckedToo() {
        let made = checks(entries().map(stored), counts: ["2024-11-07": 3, "2024-11": 4])
        XCTAssertEqual(finding(made, "per day and month"), .countMismatch)
        XCTAssertTrue(made[2].detail.contains("2024-11: the SUT counts 4, 3 acknowledged"), made[2].detail)
    }

    func testWhatTheSUTMustKeepOfEachMeasurement() {
        XCTAssertNil(
            StoredDataExpectations.values(.cuffPressure(mmHg: 120)),
            "a cuff's intermediate pressure is no observation"
        )
        XCTAssertEqual(
            StoredDataExpectations.values(.dailySummary(steps: 8000, calories: 300)),
            [.steps: 8000, .calories: 300]
        )
        XCTAssertEqual(
            StoredDataExpectations.values(
                .bloodPressure(systolic: 150, diastolic: 95, meanArterial: 113, pulse: 70, status: 0)
            ),
            [.systolic: 150, .diastolic: 95]
        )
    }
}
