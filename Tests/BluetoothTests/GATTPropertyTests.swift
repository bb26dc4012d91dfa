import Bluetooth
import VitalSimCore
import XCTest

/// Property-based tests: decode(encode(x)) == x over generated values, and encode(decode(b)) == b
/// for every byte string (of many random ones) that decodes.
final class GATTPropertyTests: XCTestCase {
    var rng = SeededRandom(seed: 20_241_107)

    func int(_ closedRange: ClosedRange<Int>) -> Int {
        closedRange.lowerBound + Int(rng.next() % UInt64(closedRange.count))
    }
    func maybe<T>(_ f: () -> T) -> T? { rng.chance(0.5) ? f() : nil }
    func sfloat() -> SFloat {
        rng.chance(0.05)
            ? SFloat(SFloat.Special.allCases[int(0...4)]) : SFloat(mantissa: int(-2045...2045), exponent: int(-8...7))!
    }
    func medFloat() -> MedFloat { MedFloat(mantissa: int(-8_388_605...8_388_605), exponent: int(-128...127))! }
    func dateTime() -> DateTime {
        DateTime(
            year: UInt16(int(1582...9999)),
            month: UInt8(int(0...12)),
            day: UInt8(int(0...31)),
            hours: UInt8(int(0...23)),
            minutes: UInt8(int(0...59)),
            seconds: UInt8(int(0...59))
        )
    }

    func check<T: GATTCharacteristic>(_ value: T, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try value.encode()
        XCTAssertEqual(try T.decode(bytes), value, "\(T.name) \(Hex.encode(bytes))", file: file, line: line)
    }

    func testDecodeOfEncodeIsIdentity() throws {
        for _ in 0..<2000 {
            try check(heartRate())
            let bp = bloodPressure()
            try check(BloodPressureMeasurement(bp))
            try check(IntermediateCuffPressure(bp))
            try check(glucose())
            try check(glucoseContext())
            try check(cgm())
            try check(spotCheck())
            try check(continuous())
            let temp = TemperatureRecord(
                fahrenheit: rng.chance(0.5),
                value: medFloat(),
                timestamp: maybe(dateTime),
                type: maybe { UInt8(int(1...9)) }
            )
            try check(TemperatureMeasurement(temp))
            try check(IntermediateTemperature(temp))
            try check(weight())
            try check(BatteryLevel(UInt32(int(0...100))))
            try check(
                CGMFeature(
                    features: UInt32(int(0...0x01FFFF)),
                    type: UInt8(int(0...15)),
                    sampleLocation: UInt8(int(0...15))
                )
            )
            try check(
                CGMStatus(
                    timeOffset: UInt16(int(0...65535)),
                    annunciation: UInt32(int(0...0xFFFFFF)),
                    hasCRC: rng.chance(0.5)
                )
            )
            try check(
                RecordAccessControlPoint(
                    opCode: .reportStoredRecords,
                    op: .greaterOrEqual,
                    operand: [1, UInt8(int(0...255)), UInt8(int(0...255))]
                )
            )
        }
    }

    func heartRate() -> HeartRateMeasurement {
        let rr = (0..<int(0...7)).map { _ in UInt16(int(0...65535)) }
        return HeartRateMeasurement(
            heartRate: UInt16(int(0...65535)),
            contact: [.notSupported, .notDetected, .detected][int(0...2)],
            energyExpended: maybe { UInt16(int(0...65535)) },
            rrIntervals: rr,
            uses16BitFormat: rng.chance(0.3)
        )
    }

    func bloodPressure() -> BloodPressureRecord {
        BloodPressureRecord(
            unitsKPa: rng.chance(0.5),
            systolic: sfloat(),
            diastolic: sfloat(),
            meanArterial: sfloat(),
            timestamp: maybe(dateTime),
            pulseRate: maybe(sfloat),
            userID: maybe { UInt8(int(0...255)) },
            status: maybe { UInt16(int(0...0x3F)) & ~0x18 | UInt16(int(0...2)) << 3 }
        )
    }

    func glucose() -> GlucoseMeasurement {
        let hasConc = rng.chance(0.7)
        return GlucoseMeasurement(
            sequenceNumber: UInt16(int(0...65535)),
            baseTime: dateTime(),
            timeOffset: maybe { Int16(int(-32768...32767)) },
            concentration: hasConc ? sfloat() : nil,
            unitsMolPerL: rng.chance(0.5),
            type: hasConc ? UInt8(int(1...10)) : 0,
            sampleLocation: hasConc ? UInt8([1, 2, 3, 4, 15][int(0...4)]) : 0,
            status: maybe { UInt16(int(0...0x0FFF)) },
            contextFollows: rng.chance(0.5)
        )
    }

    func glucoseContext() -> GlucoseMeasurementContext {
        var ctx = GlucoseMeasurementContext(sequenceNumber: UInt16(int(0...65535)), meal: maybe { UInt8(int(1...5)) })
        ctx.extendedFlags = maybe { UInt8(int(0...255)) }
        ctx.carbohydrate = maybe { (UInt8(int(1...7)), sfloat()) }
        ctx.testerHealth = maybe { (UInt8([1, 2, 3, 15][int(0...3)]), UInt8([1, 2, 3, 4, 5, 15][int(0...5)])) }
        ctx.exercise = maybe { (UInt16(int(0...65535)), UInt8(int(0...100))) }
        ctx.medication = maybe { (UInt8(int(1...5)), sfloat()) }
        ctx.medicationInLiters = rng.chance(0.5)
        ctx.hbA1c = maybe(sfloat)
        return ctx
    }

    func cgm() -> CGMMeasurement {
        let records = (0..<int(1...3)).map { _ in
            CGMRecord(
                glucose: sfloat(),
                timeOffset: UInt16(int(0...65535)),
                status: maybe { UInt8(int(0...0x3F)) },
                calTemp: maybe { UInt8(int(0...255)) },
                warning: maybe { UInt8(int(0...255)) },
                trend: maybe(sfloat),
                quality: maybe(sfloat),
                hasCRC: rng.chance(0.7)
            )
        }
        return CGMMeasurement(records: records)
    }

    func spotCheck() -> PLXSpotCheckMeasurement {
        PLXSpotCheckMeasurement(
            spo2: sfloat(),
            pulseRate: sfloat(),
            timestamp: maybe(dateTime),
            measurementStatus: maybe { UInt16(int(0...0x7FF)) << 5 },
            deviceStatus: maybe { UInt32(int(0...0xFFFF)) },
            pulseAmplitudeIndex: maybe(sfloat),
            deviceClockNotSet: rng.chance(0.2)
        )
    }

    func continuous() -> PLXContinuousMeasurement {
        var plxContinuousMeasurement = PLXContinuousMeasurement(spo2: sfloat(), pulseRate: sfloat())
        plxContinuousMeasurement.fast = maybe { (sfloat(), sfloat()) }
        plxContinuousMeasurement.slow = maybe { (sfloat(), sfloat()) }
        plxContinuousMeasurement.measurementStatus = maybe { UInt16(int(0...0x7FF)) << 5 }
        plxContinuousMeasurement.deviceStatus = maybe { UInt32(int(0...0xFFFF)) }
        plxContinuousMeasurement.pulseAmplitudeIndex = maybe(sfloat)
        return plxContinuousMeasurement
    }

    func weight() -> WeightMeasurement {
        WeightMeasurement(
            imperial: rng.chance(0.5),
            rawWeight: UInt16(int(0...65535)),
            timestamp: maybe(dateTime),
            userID: maybe { UInt8(int(0...255)) },
            bmiHeight: maybe { (UInt16(int(0...65535)), UInt16(int(0...65535))) }
        )
    }

    func testEncodeOfDecodeIsIdentityForRandomBytes() {
        var accepted: [String: Int] = [:]
        for type in CharacteristicRegistry.all {
            for _ in 0..<10000 {
                let length = int(0...22)
                var bytes = (0..<length).map { _ in UInt8(int(0...255)) }
                // Bias flags toward defined bits so that many inputs are valid.
                if !bytes.isEmpty, rng.chance(0.8) { bytes[0] &= rng.chance(0.5) ? 0x07 : 0x1F }
                guard let decoded = try? type.decode(bytes) else { continue }
                accepted[type.name, default: 0] += 1
                XCTAssertEqual(
                    try? decoded.encode(),
                    bytes,
                    "\(type.name): \(Hex.encode(bytes)) did not re-encode to itself"
                )
            }
        }
        for name in [
            "heart-rate-measurement", "blood-pressure-measurement", "plx-continuous-measurement",
            "temperature-measurement",
            "weight-measurement", "battery-level",
        ] {
            XCTAssertGreaterThan(accepted[name] ?? 0, 30, "too few valid random inputs for \(name) to mean anything")
        }
    }

    /// What a consumer of `vitalsim decode` gets back after reading its JSON with an ordinary JSON
    /// library (numbers become doubles) and writing each field as `vitalsim encode --field VALUE`:
    /// the same bytes, because the JSON names every detail the bytes carry (exponents, flag bits).
    func testDecodedJSONReEncodesThroughAnOrdinaryJSONReader() throws {
        var failures: [String] = []
        for type in CharacteristicRegistry.all {
            for _ in 0..<3000 {
                let length = int(0...22)
                var bytes = (0..<length).map { _ in UInt8(int(0...255)) }
                if !bytes.isEmpty, rng.chance(0.8) { bytes[0] &= rng.chance(0.5) ? 0x07 : 0x1F }
                guard let json = try? CharacteristicRegistry.decodeToJSON(type, bytes) else { continue }
                guard case let .object(object) = json else { continue }
                var fields: [String: String] = [:]
                for (key, value) in object where !Self.notEncoded.contains(key) {
                    fields[key] = Self.consumerText(value)
                }
                do throws(GATTError) {
                    let again = try CharacteristicRegistry.encode(type, fields: fields)
                    if again != bytes {
                        failures.append(
                            "\(type.name) \(Hex.encode(bytes)) -> \(Hex.encode(again)) via \(json.serialized())"
                        )
                    }
                } catch {
                    failures.append("\(type.name) \(Hex.encode(bytes)): \(error) via \(json.serialized())")
                }
            }
        }
        // Generated values reach the fields random bytes seldom reach (glucose, context, weight).
        for _ in 0..<500 {
            let bp = bloodPressure()
            let values: [any GATTCharacteristic] = [
                heartRate(), BloodPressureMeasurement(bp), IntermediateCuffPressure(bp), glucose(), glucoseContext(),
                spotCheck(),
                continuous(), weight(),
            ]
            for value in values { failures += consumerRoundTrip(value) }
        }
        var byType: [String: [String]] = [:]
        for f in failures { byType[String(f.split(separator: " ")[0]), default: []].append(f) }
        XCTAssertEqual(
            failures.count,
            0,
            byType.keys.sorted().map { "\($0): \(byType[$0]!.count), e.g. \(byType[$0]![0])" }.joined(separator: "\n")
        )
    }

    /// A decoded JSON value as a consumer writes it back on the command line: numbers as Swift prints
    /// a double (or an integer), lists comma-separated.
    /// The failures of one value's trip through decode's JSON, an ordinary reader and encode.
    func consumerRoundTrip(_ value: any GATTCharacteristic) -> [String] {
        let type = Swift.type(of: value)
        guard let bytes = try? value.encode(),
            case let .object(object)? = try? CharacteristicRegistry.decodeToJSON(type, bytes)
        else {
            return ["\(type.name) generated value did not encode and decode"]
        }
        var fields: [String: String] = [:]
        for (key, v) in object where !Self.notEncoded.contains(key) { fields[key] = Self.consumerText(v) }
        do throws(GATTError) {
            let again = try CharacteristicRegistry.encode(type, fields: fields)
            return again == bytes
                ? []
                : [
                    "\(type.name) \(Hex.encode(bytes)) -> \(Hex.encode(again)) via \(JSONValue.object(object).serialized())"
                ]
        } catch {
            return ["\(type.name) \(Hex.encode(bytes)): \(error) via \(JSONValue.object(object).serialized())"]
        }
    }

    /// What `vitalsim decode` prints beside the fields: the characteristic, and values derived from
    /// fields for reading convenience (`vitalsim encode` takes the fields they come from).
    static let notEncoded: Set = [
        "characteristic", "uuid", "rrIntervalsSeconds", "mgPerDL", "locationName", "opCodeName", "operatorName",
        "temperatureTypeName",
        "requestOpCodeName", "responseCodeName", "measurementStatusFlags",
    ]

    static func consumerText(_ value: JSONValue) -> String {
        switch value {
        case let .bool(b): b ? "true" : "false"
        case let .int(i): String(i)
        case let .double(d): number(d)
        case let .decimal(text) where text.hasPrefix("\""): String(text.dropFirst().dropLast())
        case let .decimal(text): number(Double(text) ?? .nan)
        case let .string(text): text
        case let .array(items): items.map(consumerText).joined(separator: ",")
        default: value.serialized()
        }
    }

    /// A number read as a double and written back: as an integer when it is whole.
    static func number(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)" }

    func testCorruptedPayloadsAreRejected() throws {
        let hr = try HeartRateMeasurement(heartRate: 72, contact: .detected, rrIntervals: [850]).encode()
        XCTAssertThrowsError(try HeartRateMeasurement.decode(Array(hr.dropLast())))
        var flags = hr
        flags[0] |= 0x80
        XCTAssertThrowsError(try HeartRateMeasurement.decode(flags))
        var cgm = try CGMMeasurement(records: [
            CGMRecord(glucose: SFloat(mantissa: 100, exponent: 0)!, timeOffset: 5, hasCRC: true)
        ])
        .encode()
        cgm[cgm.count - 1] ^= 0xFF
        XCTAssertThrowsError(try CGMMeasurement.decode(cgm))
    }
}
