import Bluetooth
import Foundation
import VitalSimCore

/// Appends JSON lines to a file (or discards them for benchmarks), buffering large blocks.
package final class JSONLWriter {
    let handle: FileHandle?
    var buffer = ""
    package private(set) var lines = 0

    /// Opens `path` for writing, truncating it; nil discards output.
    package init(path: String?) throws {
        if let path {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                let fileHandle = FileHandle(forWritingAtPath: path)
            else {
                throw FileText.Failure.unwritable(path: path)
            }
            handle = fileHandle
        } else {
            handle = nil
        }
        buffer.reserveCapacity(1 << 17)
    }

    package func write(_ value: JSONValue) {
        value.write(into: &buffer)
        buffer += "\n"
        lines += 1
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    func flush() {
        if let handle { handle.write(Data(buffer.utf8)) }
        buffer.removeAll(keepingCapacity: true)
    }

    package func close() throws {
        flush()
        try handle?.close()
    }
}

/// The `readings.jsonl` record of one reading.
package enum ReadingRecord {
    package static func json(_ reading: Reading, payloads: [EncodedPayload], scenario: Scenario) -> JSONValue {
        func iso(_ t: Int64) -> JSONValue {
            .string(CivilTime(unixMilliseconds: scenario.startUnixMilliseconds + t).iso8601(fractional: true))
        }
        var members: [(String, JSONValue)] = [
            ("id", .string(reading.id)), ("patient", .string(reading.patientID)), ("device", .string(reading.deviceID)),
            ("deviceType", .string(reading.deviceType.rawValue)),
            ("kind", .string(reading.kind.rawValue)), ("seq", .int(Int64(reading.seq))),
            ("value", .double(reading.measurement.primaryValue)),
            ("unit", .string(reading.measurement.unit)), ("truth", .double((reading.truth * 1000).rounded() / 1000)),
            ("measuredAt", iso(reading.measuredAt)), ("deviceTime", iso(reading.deviceTime)),
            ("intendedEmitTime", iso(reading.intendedEmitTime)),
            (
                "virtualMs",
                .object([
                    ("measured", .int(reading.measuredAt)), ("device", .int(reading.deviceTime)),
                    ("emit", .int(reading.intendedEmitTime)),
                ])
            ),
        ]
        members += details(reading.measurement)
        if let payload = payloads.first {
            if let characteristic = payload.characteristic {
                members.append(("characteristic", .string("0x" + String(characteristic, radix: 16, uppercase: true))))
                members.append(("payloadHex", .string(Hex.encode(payload.bytes))))
                if payloads.count > 1 {
                    members.append(
                        ("extraPayloadsHex", .array(payloads.dropFirst().map { .string(Hex.encode($0.bytes)) }))
                    )
                }
            } else if let json = payload.json {
                members.append(("payload", json))
            }
        }
        members.append(("delivery", .array(reading.delivery.labels.map { .string($0) })))
        return .object(members)
    }

    static func details(_ vitalSimCore: VitalSimCore.Measurement) -> [(String, JSONValue)] {
        switch vitalSimCore {
        case let .heartRate(bpm, rr, ee, contact):
            var members: [(String, JSONValue)] = [
                ("heartRate", .int(Int64(bpm))), ("rrIntervals", .array(rr.map { .int(Int64($0)) })),
                ("sensorContact", .string(contact.rawValue)),
            ]
            if let ee { members.append(("energyExpended", .int(Int64(ee)))) }
            return members
        case let .bloodPressure(s, d, map, pulse, status):
            return [
                ("systolic", .int(Int64(s))), ("diastolic", .int(Int64(d))), ("meanArterialPressure", .int(Int64(map))),
                ("pulseRate", .int(Int64(pulse))), ("status", .int(Int64(status))),
            ]
        case let .cuffPressure(p): return [("cuffPressure", .int(Int64(p)))]
        case let .glucose(mg, meal, status):
            return [("glucose", .int(Int64(mg))), ("meal", .int(Int64(meal))), ("status", .int(Int64(status)))]
        case let .cgm(mg, trend, quality, offset, ann):
            return [
                ("glucose", .int(Int64(mg))), ("trend", .double(trend)), ("quality", .int(Int64(quality))),
                ("timeOffset", .int(Int64(offset))), ("annunciation", .int(Int64(ann))),
            ]
        case let .spo2(p, pulse, continuous):
            return [
                ("spo2", .int(Int64(p))), ("pulseRate", .int(Int64(pulse))),
                ("mode", .string(continuous ? "continuous" : "spot-check")),
            ]
        case let .temperature(c, type): return [("temperature", .double(c)), ("temperatureType", .int(Int64(type)))]
        case let .weight(kg): return [("weight", .double(kg))]
        case let .battery(p): return [("batteryLevel", .int(Int64(p)))]
        case let .dailySummary(steps, cal):
            return [("stepCount", .int(Int64(steps))), ("caloriesBurned", .int(Int64(cal)))]
        case let .feeding(ml): return [("method", .string(FeedingMethod.bottle.rawValue)), ("volume", .int(Int64(ml)))]
        case let .breastfeeding(minutes):
            return [("method", .string(FeedingMethod.breast.rawValue)), ("duration", .int(Int64(minutes)))]
        case let .respirationRate(n): return [("respirationRate", .int(Int64(n)))]
        case let .symptom(kind, severity):
            return [("symptom", .string(kind.rawValue)), ("severity", .string(severity.name))]
        case let .equipment(item, setting, action):
            return [
                ("item", .string(item.rawValue)), ("setting", .double(setting)), ("action", .string(action.rawValue)),
            ]
        case let .ecg(r):
            return [
                ("classification", .string(r.classification.rawValue)),
                ("averageHeartRate", .int(Int64(r.averageHeartRate))),
                ("samples", .int(Int64(r.microvolts.count))),
                ("rPeaks", .array(r.beats.map { .double(($0 * 10).rounded() / 10) })),
            ]
        }
    }
}
