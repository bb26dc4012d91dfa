import Bluetooth
import VitalSimCore

/// A payload as it leaves a device: GATT bytes on a characteristic, or JSON for HTTPS/MQTT devices.
package struct EncodedPayload: Sendable {
    /// Characteristic UUID for GATT payloads.
    package var characteristic: UInt16?
    /// Indication (confirmed) rather than notification.
    package var indicate: Bool
    package var bytes: [UInt8]
    /// JSON body for non-GATT devices (VitalEdge payloads, feeding entries).
    package var json: JSONValue?
}

/// Turns readings into the bytes their devices send: Bluetooth SIG GATT layouts for BLE devices,
/// the VitalEdge payloads of the VitalEdge SDS and RSD for the phone bridge, and observation JSON otherwise.
package struct ReadingEncoder {
    let startUnixMilliseconds: Int64

    package init(startUnixMilliseconds: Int64) { self.startUnixMilliseconds = startUnixMilliseconds }

    /// The payloads of one reading, in send order (a glucose record is followed by its context).
    package func encode(_ reading: Reading) -> [EncodedPayload] {
        var out =
            reading.deviceType.isBluetooth
            ? gatt(reading) : [EncodedPayload(characteristic: nil, indicate: false, bytes: [], json: json(reading))]
        if let corruption = reading.delivery.corruption, !out.isEmpty, out[0].characteristic != nil {
            out[0].bytes = corrupt(out[0].bytes, corruption, uuid: out[0].characteristic!)
        }
        return out
    }

    func dateTime(_ reading: Reading) -> DateTime {
        DateTime(unixMilliseconds: startUnixMilliseconds + reading.deviceTime)
    }

    func gatt(_ reading: Reading) -> [EncodedPayload] {
        func p(_ uuid: UInt16, _ indicate: Bool, _ c: some GATTCharacteristic) -> EncodedPayload {
            EncodedPayload(characteristic: uuid, indicate: indicate, bytes: (try? c.encode()) ?? [], json: nil)
        }
        switch reading.measurement {
        case let .heartRate(bpm, rr, ee, contact):
            let heartRateMeasurement = HeartRateMeasurement(
                heartRate: UInt16(clamping: bpm),
                contact: contact,
                energyExpended: ee,
                rrIntervals: rr
            )
            return [p(HeartRateMeasurement.uuid, false, heartRateMeasurement)]
        case let .bloodPressure(s, d, heartRateMeasurement, pulse, status):
            let rec = BloodPressureRecord(
                systolic: sf(s),
                diastolic: sf(d),
                meanArterial: sf(heartRateMeasurement),
                timestamp: dateTime(reading),
                pulseRate: sf(pulse),
                userID: 1,
                status: status == 0 ? nil : status
            )
            return [p(BloodPressureMeasurement.uuid, true, BloodPressureMeasurement(rec))]
        case let .cuffPressure(mmHg):
            return [p(IntermediateCuffPressure.uuid, false, IntermediateCuffPressure(cuffPressure: min(mmHg, 2045))!)]
        case let .glucose(mg, meal, status):
            return glucose(reading, mg: mg, meal: meal, status: status)
        case let .cgm(mg, trend, quality, offset, annunciation):
            return [cgm(mg: mg, trend: trend, quality: quality, offset: offset, annunciation: annunciation)]
        case let .spo2(pct, pulse, continuous):
            if continuous {
                return [
                    p(
                        PLXContinuousMeasurement.uuid,
                        false,
                        PLXContinuousMeasurement(spo2: sf(pct), pulseRate: sf(pulse))
                    )
                ]
            }
            return [
                p(
                    PLXSpotCheckMeasurement.uuid,
                    true,
                    PLXSpotCheckMeasurement(spo2: sf(pct), pulseRate: sf(pulse), timestamp: dateTime(reading))
                )
            ]
        case let .temperature(c, type):
            let rec = TemperatureRecord(
                value: MedFloat(c, exponent: -1) ?? MedFloat(.nan),
                timestamp: dateTime(reading),
                type: type
            )
            return [p(TemperatureMeasurement.uuid, true, TemperatureMeasurement(rec))]
        case let .weight(kg):
            var weight = WeightMeasurement(kilograms: kg) ?? WeightMeasurement(rawWeight: 0xFFFF)
            weight.timestamp = dateTime(reading)
            return [p(WeightMeasurement.uuid, true, weight)]
        case let .battery(pct):
            return [p(BatteryLevel.uuid, false, BatteryLevel(UInt32(max(0, min(100, pct)))))]
        case .dailySummary, .feeding, .breastfeeding, .respirationRate, .symptom, .ecg, .equipment:
            return [EncodedPayload(characteristic: nil, indicate: false, bytes: [], json: json(reading))]
        }
    }

    /// A Glucose Measurement (concentration in kg/L: mg/dL at exponent −5) and its context.
    func glucose(_ reading: Reading, mg: Int, meal: UInt8, status: UInt16) -> [EncodedPayload] {
        let seq = UInt16(truncatingIfNeeded: reading.seq)
        let glucoseMeasurement = GlucoseMeasurement(
            sequenceNumber: seq,
            baseTime: dateTime(reading),
            timeOffset: 0,
            concentration: SFloat(mantissa: min(mg, 2045), exponent: -5),
            type: 2,
            sampleLocation: 1,
            status: status == 0 ? nil : status,
            contextFollows: true
        )
        let context = GlucoseMeasurementContext(sequenceNumber: seq, meal: meal)
        return [
            EncodedPayload(
                characteristic: GlucoseMeasurement.uuid,
                indicate: false,
                bytes: (try? glucoseMeasurement.encode()) ?? [],
                json: nil
            ),
            EncodedPayload(
                characteristic: GlucoseMeasurementContext.uuid,
                indicate: false,
                bytes: (try? context.encode()) ?? [],
                json: nil
            ),
        ]
    }

    /// One CGM record with E2E-CRC; the annunciation packs status, cal/temp and warning octets.
    func cgm(mg: Int, trend: Double, quality: Int, offset: UInt16, annunciation ann: UInt32) -> EncodedPayload {
        let status = UInt8(ann & 0xFF)
        let cal = UInt8((ann >> 8) & 0xFF)
        let warn = UInt8((ann >> 16) & 0xFF)
        let rec = CGMRecord(
            glucose: sf(mg),
            timeOffset: offset,
            status: status == 0 ? nil : status,
            calTemp: cal == 0 ? nil : cal,
            warning: warn == 0 ? nil : warn,
            trend: SFloat(trend, exponent: -1) ?? SFloat(.nres),
            quality: sf(quality),
            hasCRC: true
        )
        let bytes = (try? CGMMeasurement(records: [rec]).encode()) ?? []
        return EncodedPayload(characteristic: CGMMeasurement.uuid, indicate: false, bytes: bytes, json: nil)
    }

    private func sf(_ v: Int) -> SFloat { SFloat(mantissa: max(-2045, min(v, 2045)), exponent: 0)! }

    /// The JSON a non-GATT device sends: VitalEdge JSON for the phone bridge's heart rate and daily
    /// summaries (``VitalEdgeJSON``), the observation JSON (``ObservationJSON``) otherwise.
    package func json(_ reading: Reading) -> JSONValue {
        VitalEdgeJSON.encode(reading, start: startUnixMilliseconds) ?? ObservationJSON.encode(
            reading,
            start: startUnixMilliseconds
        )
            ?? .null
    }

    /// Applies a deliberate corruption so that a strict decoder must reject the bytes. The JSON forms
    /// have no GATT counterpart (the scenario loader allows them only on devices that send JSON); if
    /// such a reading is still encoded as GATT (a capture of a device relayed over HTTPS), its bytes
    /// are cut short, so they stay invalid.
    func corrupt(_ bytes: [UInt8], _ corruption: Corruption, uuid: UInt16) -> [UInt8] {
        var written = bytes
        switch corruption {
        case .truncation, .wrongType, .missingField, .outOfRange, .badTimestamp, .futureTimestamp, .unknownField,
            .mixed, .badUserID, .badCalories:
            if uuid == BatteryLevel.uuid { return [] }
            written.removeLast()
        case .badFlags:
            if uuid == BatteryLevel.uuid { return [0xFF] }
            if uuid == CGMMeasurement.uuid, written.count > 1 { written[1] |= 0x04 } else { written[0] |= 0x80 }
        case .badCRC:
            if uuid == CGMMeasurement.uuid, written.count >= 2 {
                written[written.count - 1] ^= 0xFF
                written[written.count - 2] ^= 0xFF
            } else {
                written[0] |= 0x80
            }
        }
        return written
    }
}
