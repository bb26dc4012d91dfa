import Bluetooth
import VitalSimCore

/// Turns a GATT characteristic value into an ``Observation`` (the reference SUT's raw-GATT ingestion):
/// the value is decoded with VitalSim's strict decoders; the observation takes the payload's own time
/// stamp when it has one (BPM, glucose base time + offset, PLX spot-check, temperature, weight) and
/// `receivedAt` otherwise (heart rate, continuous SpO2, battery; CGM too unless its session start
/// time is known, when a CGM record is stamped session start + its time offset).
package enum GATTObservations {
    /// - Parameter cgmSessionStart: the CGM's Session Start Time (0x2AAA) as Unix ms, read by a gateway at connection.
    package static func observation(
        uuid: UInt16,
        bytes: [UInt8],
        patientID: String,
        deviceID: String,
        readingID: String,
        receivedAt: Int64,
        cgmSessionStart: Int64? = nil
    ) throws(GATTError) -> Observation? {
        let clock = PayloadClock(receivedAt: receivedAt, cgmSessionStart: cgmSessionStart)
        guard let decoded = try decode(uuid: uuid, bytes: bytes, clock), !decoded.values.isEmpty else { return nil }
        return Observation(
            readingID: readingID,
            patientID: patientID,
            deviceID: deviceID,
            time: decoded.time,
            values: decoded.values,
            rrIntervals: decoded.rr
        )
    }

    /// What a characteristic value says: values, the time they were measured, RR intervals.
    struct Decoded {
        var values: [Signal: Double]
        var time: Int64
        var rr: [Double] = []
    }

    /// The receipt time and a CGM's session start, for values without (usable) time stamps.
    struct PayloadClock {
        let receivedAt: Int64
        let cgmSessionStart: Int64?

        /// A payload's Date Time as Unix ms; the receipt time when absent or unset (month or day 0).
        func stamp(_ dateTime: DateTime?) -> Int64 { dateTime?.unixMilliseconds ?? receivedAt }
    }

    static func decode(uuid: UInt16, bytes: [UInt8], _ clock: PayloadClock) throws(GATTError) -> Decoded? {
        switch uuid {
        case HeartRateMeasurement.uuid:
            let measurement = try HeartRateMeasurement.decode(bytes)
            return Decoded(
                values: [.heartRate: Double(measurement.heartRate)],
                time: clock.receivedAt,
                rr: measurement.rrIntervals.map { Double($0) / 1024 }
            )
        case BloodPressureMeasurement.uuid:
            let record = try BloodPressureMeasurement.decode(bytes).record
            let scale = record.unitsKPa ? 7.50062 : 1
            var values: [Signal: Double] = [
                .systolic: record.systolic.value * scale, .diastolic: record.diastolic.value * scale,
            ]
            if let pulse = record.pulseRate, pulse.special == nil { values[.heartRate] = pulse.value }
            return Decoded(values: values, time: clock.stamp(record.timestamp))
        case GlucoseMeasurement.uuid:
            let measurement = try GlucoseMeasurement.decode(bytes)
            guard let mg = measurement.milligramsPerDeciliter else { return nil }
            return Decoded(
                values: [.glucose: (mg * 10).rounded() / 10],
                time: clock.stamp(measurement.baseTime) + Int64(measurement.timeOffset ?? 0) * 60_000
            )
        case CGMMeasurement.uuid:
            guard let record = try CGMMeasurement.decode(bytes).records.last, record.glucose.special == nil else {
                return nil
            }
            let time = clock.cgmSessionStart.map { $0 + Int64(record.timeOffset) * 60_000 } ?? clock.receivedAt
            return Decoded(values: [.cgm: record.glucose.value], time: time)
        case PLXSpotCheckMeasurement.uuid:
            let measurement = try PLXSpotCheckMeasurement.decode(bytes)
            return Decoded(
                values: oximetry(measurement.spo2, measurement.pulseRate),
                time: clock.stamp(measurement.timestamp)
            )
        case PLXContinuousMeasurement.uuid:
            let measurement = try PLXContinuousMeasurement.decode(bytes)
            return Decoded(values: oximetry(measurement.spo2, measurement.pulseRate), time: clock.receivedAt)
        case TemperatureMeasurement.uuid:
            let record = try TemperatureMeasurement.decode(bytes).record
            let celsius =
                record.fahrenheit ? ((record.value.value - 32) * 5 / 9 * 10).rounded() / 10 : record.value.value
            return Decoded(values: [.temperature: celsius], time: clock.stamp(record.timestamp))
        case WeightMeasurement.uuid:
            let measurement = try WeightMeasurement.decode(bytes)
            guard let kg = measurement.weight else { return nil }
            return Decoded(
                values: [.weight: measurement.imperial ? kg * 0.45359237 : kg],
                time: clock.stamp(measurement.timestamp)
            )
        case BatteryLevel.uuid:
            return Decoded(values: [.battery: Double(try BatteryLevel.decode(bytes).value)], time: clock.receivedAt)
        default:
            return nil
        }
    }

    /// SpO2, and the pulse rate unless it is a special value.
    static func oximetry(_ spo2: SFloat, _ pulse: SFloat) -> [Signal: Double] {
        pulse.special == nil ? [.spo2: spo2.value, .heartRate: pulse.value] : [.spo2: spo2.value]
    }
}

extension CGMSessionStartTime {
    /// The session start as Unix ms (UTC: the local Date Time less its time zone and DST offset); nil when unset or
    /// unknown.
    package var unixMilliseconds: Int64? {
        guard start.month > 0, start.day > 0, timeZone != -128, dstOffset != 255 else { return nil }
        let local = CivilTime(
            year: Int(start.year),
            month: Int(start.month),
            day: Int(start.day),
            hour: Int(start.hours),
            minute: Int(start.minutes),
            second: Int(start.seconds)
        ).unixMilliseconds
        return local - Int64(timeZone) * 15 * 60_000 - Int64(dstOffset) * 15 * 60_000
    }
}
