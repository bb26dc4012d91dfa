import Bluetooth
import TestFixtures
import Traffic
import VitalSimCore
import XCTest

/// Every payload the core suite emits decodes with VitalSim's strict decoders to the reading's own
/// values, and every deliberately corrupted payload is rejected.
final class EmittedPayloadTests: XCTestCase {
    func testCoreSuitePayloadsDecodeToTheirReadings() throws {
        let dir = Fixtures.repositoryRoot + "/scenarios/core"
        var decoded = 0
        var rejected = 0
        var corrupted = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where file.hasSuffix(".yaml") {
            let scenario = try ScenarioLoader.load(path: dir + "/" + file)
            var run = ScenarioRun(scenario: scenario)
            let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
            while let (reading, _) = run.next() {
                guard let payload = encoder.encode(reading).first, let uuid = payload.characteristic else { continue }
                let type = try CharacteristicRegistry.lookup(String(uuid, radix: 16))
                if reading.delivery.corruption != nil {
                    corrupted += 1
                    XCTAssertThrowsError(
                        try type.decode(payload.bytes),
                        "\(file) \(reading.id): corrupted payload \(Hex.encode(payload.bytes)) was accepted"
                    ) { _ in rejected += 1 }
                    continue
                }
                let fields = try CharacteristicRegistry.decodeToJSON(type, payload.bytes)
                decoded += 1
                switch reading.measurement {
                case let .heartRate(bpm, rr, _, _):
                    XCTAssertEqual(fields["heartRate"], .int(Int64(bpm)))
                    if !rr.isEmpty { XCTAssertEqual(fields["rrIntervals"], .array(rr.map { .int(Int64($0)) })) }
                case let .bloodPressure(sys, dia, map, pulse, _):
                    XCTAssertEqual(fields["systolic"], .decimal(String(sys)))
                    XCTAssertEqual(fields["diastolic"], .decimal(String(dia)))
                    XCTAssertEqual(fields["meanArterialPressure"], .decimal(String(map)))
                    XCTAssertEqual(fields["pulseRate"], .decimal(String(pulse)))
                case let .glucose(mg, _, _):
                    let glucose = try GlucoseMeasurement.decode(payload.bytes)
                    XCTAssertEqual(glucose.milligramsPerDeciliter!, Double(mg), accuracy: 1e-6)
                    XCTAssertEqual(glucose.sequenceNumber, UInt16(reading.seq))
                case let .cgm(mg, _, _, offset, _):
                    let cgm = try CGMMeasurement.decode(payload.bytes).records[0]
                    XCTAssertEqual(cgm.glucose.value, Double(mg))
                    XCTAssertEqual(cgm.timeOffset, offset)
                case let .spo2(pct, pulse, _):
                    XCTAssertEqual(fields["spo2"], .decimal(String(pct)))
                    XCTAssertEqual(fields["pulseRate"], .decimal(String(pulse)))
                case let .temperature(cgm, _):
                    XCTAssertEqual(
                        try TemperatureMeasurement.decode(payload.bytes).record.value.value,
                        cgm,
                        accuracy: 1e-9
                    )
                case let .weight(kg):
                    XCTAssertEqual(try WeightMeasurement.decode(payload.bytes).weight!, kg, accuracy: 0.0025)
                case let .battery(pct):
                    XCTAssertEqual(fields["batteryLevel"], .int(Int64(pct)))
                case let .cuffPressure(mmHg):
                    XCTAssertEqual(fields["cuffPressure"], .decimal(String(mmHg)))
                default: XCTFail("unexpected GATT reading \(reading.kind)")
                }
            }
        }
        XCTAssertGreaterThan(decoded, 40_000)
        XCTAssertGreaterThan(corrupted, 20, "the corrupt scenario should corrupt payloads")
        XCTAssertEqual(rejected, corrupted)
    }

    func testVitalEdgePayloadsMatchTheSeedDocuments() throws {
        let scenario = try ScenarioLoader.load(
            path: Fixtures.repositoryRoot + "/scenarios/core/vitaledge-daily-summary.yaml"
        )
        var run = ScenarioRun(scenario: scenario)
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        var hr = 0
        var summaries = 0
        while let (reading, _) = run.next() {
            guard let json = encoder.encode(reading).first?.json, case let .object(o) = json else { continue }
            let keys = o.map(\.0)
            if reading.kind == .dailySummary {
                summaries += 1
                XCTAssertEqual(keys, ["userId", "timestamp", "stepCount", "caloriesBurned"])
                XCTAssertEqual(
                    json["timestamp"],
                    .string("2024-11-08T00:00:00Z"),
                    "sent at midnight (the VitalEdge SDS §5.2)"
                )
            } else {
                hr += 1
                XCTAssertEqual(keys, ["userId", "timestamp", "heartRate"])
            }
            XCTAssertEqual(json["userId"], .string("501"))
            if case let .string(ts) = json["timestamp"] { XCTAssertNotNil(CivilTime(iso8601: ts), ts) }
        }
        // Every 5 minutes for 2 days (575), less the 12 readings skipped while the patient walked
        // through their interval (the watch waits for a still arm).
        XCTAssertEqual(hr, 563, "every 5 minutes for 2 days but while walking")
        XCTAssertEqual(summaries, 1)
    }
}
