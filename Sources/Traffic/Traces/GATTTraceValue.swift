import Bluetooth
import VitalSimCore

/// A measurement characteristic's value as trace samples: decoded with VitalSim's GATT decoders,
/// converted to the scripted-reading fields' units (mmHg, °C, kg, mg/dL), at the value's own time
/// stamp where it carries one.
enum GATTTraceValue {
    static let kPaToMmHg = 7.500_615_75

    static func samples(
        _ uuid: UInt16,
        _ value: [UInt8],
        capturedAt: Int64,
        record: Int
    ) throws(GATTError) -> [TraceSample] {
        func sample(_ values: [String: Double], _ stamp: DateTime? = nil) -> TraceSample {
            TraceSample(time: stamp.flatMap(unixMilliseconds) ?? capturedAt, values: values, line: record)
        }
        switch uuid {
        case 0x2A37:
            return [sample(["heart-rate": Double(try HeartRateMeasurement.decode(value).heartRate)])]
        case 0x2A35:
            let r = try BloodPressureMeasurement.decode(value).record
            let factor = r.unitsKPa ? kPaToMmHg : 1
            var values = [
                "systolic": (r.systolic.value * factor).rounded(), "diastolic": (r.diastolic.value * factor).rounded(),
            ]
            if let pulse = r.pulseRate, pulse.special == nil { values["pulse"] = pulse.value }
            return [sample(values, r.timestamp)]
        case 0x2A1C:
            let r = try TemperatureMeasurement.decode(value).record
            let celsius = r.fahrenheit ? (r.value.value - 32) * 5 / 9 : r.value.value
            return [sample(["temperature": (celsius * 10).rounded() / 10], r.timestamp)]
        case 0x2A9D:
            let weight = try WeightMeasurement.decode(value)
            let kg = weight.weight.map { weight.imperial ? $0 * 0.453_592_37 : $0 } ?? .nan
            return [sample(["weight": kg], weight.timestamp)]
        case 0x2A18:
            let glucose = try GlucoseMeasurement.decode(value)
            let offset = Int64(glucose.timeOffset ?? 0) * 60_000
            let at = unixMilliseconds(glucose.baseTime).map { $0 + offset }
            return [
                TraceSample(
                    time: at ?? capturedAt,
                    values: ["glucose": glucose.milligramsPerDeciliter ?? .nan],
                    line: record
                )
            ]
        case 0x2AA7:
            let records = try CGMMeasurement.decode(value).records
            let last = Int64(records.last?.timeOffset ?? 0)
            return records.map { r in
                TraceSample(
                    time: capturedAt - (last - Int64(r.timeOffset)) * 60_000,
                    values: ["cgm": r.glucose.value],
                    line: record
                )
            }
        case 0x2A5E:
            let measurement = try PLXSpotCheckMeasurement.decode(value)
            return [
                sample(["spo2": measurement.spo2.value, "pulse": measurement.pulseRate.value], measurement.timestamp)
            ]
        case 0x2A5F:
            let measurement = try PLXContinuousMeasurement.decode(value)
            return [sample(["spo2": measurement.spo2.value, "pulse": measurement.pulseRate.value])]
        default:
            return []
        }
    }

    /// A Date Time in Unix ms (UTC); nil when any part is unknown or out of range.
    static func unixMilliseconds(_ dateTime: DateTime) -> Int64? {
        guard dateTime.year != 0, dateTime.problem == nil else { return nil }
        return dateTime.unixMilliseconds
    }
}
