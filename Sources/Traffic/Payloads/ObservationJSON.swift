import Foundation
import VitalSimCore

/// The field a SUT must name when it rejects a deliberately corrupted payload.
/// What kind of invalidity a corrupted reading has, as a standard server would see it: each its
/// own requirement (`ingest.refuse.LEVEL`) and conformance-statement item.
package enum RefusalLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// The body breaks its format: not JSON, a number as a string, an unknown element, a malformed
    /// time (what FHIR R4 itself declares invalid).
    case structure
    /// A unit its code does not take (the vital-signs profile's UCUM units, a GATT unit flag).
    case terminology
    /// Valid in form, impossible for monitoring: a negative value, a time a century ahead, a
    /// measurement, component or severity left out.
    case plausibility

    /// The level of `corruption`'s form.
    package static func of(_ corruption: Corruption) -> RefusalLevel {
        switch corruption {
        case .truncation, .mixed, .badUserID, .wrongType, .unknownField, .badTimestamp: .structure
        case .badFlags: .terminology
        case .badCRC, .outOfRange, .badCalories, .missingField, .futureTimestamp: .plausibility
        }
    }

    /// Structure first, plausibility last.
    var rank: Int {
        switch self {
        case .structure: 0
        case .terminology: 1
        case .plausibility: 2
        }
    }

    package static func < (lhs: RefusalLevel, rhs: RefusalLevel) -> Bool { lhs.rank < rhs.rank }
}

package struct ExpectedRejection: Sendable, Equatable {
    package var status: Int
    /// The field as golden files name it, whatever the format (`value`, `systolic`, `timestamp`,
    /// `unit`, `unexpectedField`, …).
    package var field: String
    /// How the payload's own format names ``field`` (a FHIR Observation's `valueQuantity.value`, a
    /// SUT profile's names): a SUT naming any of them names ``field``.
    package var spellings: [String]
    /// The corruption sent (`out-of-range`, `truncation`, …), for findings; nil when unknown.
    package var corruption: String?
    /// The start of the body sent (up to 120 bytes), for findings.
    package var sent: String?
    /// What kind of invalidity it is (set with ``corruption``): a SUT's conformance statement may
    /// claim only some (`conformance.refusals`).
    package var level: RefusalLevel?
    /// True when the payload sent has no element a refusal could name (a FHIR body cut short):
    /// the refusal is judged by its status alone.
    package var namesNoElement = false

    /// How the payload's own format names the field, for findings: its first spelling (a FHIR
    /// element path such as `Observation.valueQuantity.value`), else ``field``.
    package var wireField: String { spellings.first { $0 != "*" && !$0.isEmpty } ?? field }

    /// What a finding says was sent: the corruption and the body's start.
    package var sentDescription: String {
        var parts: [String] = []
        if let corruption { parts.append("corruption \(corruption)") }
        if let sent { parts.append("body " + sent) }
        return parts.joined(separator: ", ")
    }

    /// The rejection with `status` naming `field` (empty when no field can be named, e.g. a truncated body).
    package init(status: Int, field: String, spellings: [String] = []) {
        self.status = status
        self.field = field
        self.spellings = spellings
    }

    /// Up to 120 bytes of `body` as text on one line (bytes that are not UTF-8, e.g. a raw GATT
    /// value, in hex).
    package static func start(of body: [UInt8]) -> String {
        let head = body.prefix(120)
        guard let text = String(validating: head, as: UTF8.self) else {
            return head.map { String(format: "%02x", $0) }.joined(separator: " ") + (body.count > 120 ? " …" : "")
        }
        return text.replacingOccurrences(of: "\n", with: " ") + (body.count > 120 ? "…" : "")
    }

    /// The name golden files give the measured field of `r`'s payload in the reference contract:
    /// `heartRate` or `stepCount` (the VitalEdge payloads of the phone bridge), `systolic`, or `value`.
    package static func measurementField(_ reading: Reading) -> String {
        switch (reading.deviceType, reading.kind) {
        case (.phoneBridge, .dailySummary): "stepCount"
        case (.phoneBridge, _): "heartRate"
        case (_, .bloodPressure): "systolic"
        default: "value"
        }
    }

    /// The same rejection named as golden files name it for `r`: a measured field (`value`,
    /// `systolic`, `heartRate`, `stepCount`) becomes ``measurementField(_:)``, its format's name kept
    /// among the spellings.
    package func named(for r: Reading) -> ExpectedRejection {
        let canonical = ExpectedRejection.measurementField(r)
        guard ["value", "systolic", "heartRate", "stepCount"].contains(field), field != canonical else { return self }
        var out = self
        out.spellings = Array(Set(spellings + [field])).sorted()
        out.field = canonical
        return out
    }

    /// `named` (the field a SUT's refusal named) as golden files name it: ``field`` when it is one of
    /// its spellings (a FHIRPath's leading resource type, e.g. `Observation.`, aside), else unchanged.
    /// The spelling `*` (a format that cannot tell which field is wrong) accepts any name.
    package func canonical(_ named: String?) -> String? {
        if spellings.contains("*") { return field }
        guard let named, !spellings.isEmpty else { return named }
        var bare = Substring(named)
        if let dot = bare.firstIndex(of: "."), bare[..<dot].first?.isUppercase == true, !bare[..<dot].contains("[") {
            bare = bare[bare.index(after: dot)...]
        }
        return spellings.contains(named) || spellings.contains(String(bare)) ? field : named
    }
}

/// The observation JSON of the SUT contract (`POST /api/v1/observations` items, and MQTT messages of
/// non-GATT devices): `{readingId, patientId, deviceId, kind, value | systolic+diastolic, unit,
/// timestamp, sequence}`, heart rate with its RR intervals in ms, a feed with its `method`
/// (`bottle`: mL, `breast`: min), a symptom with its `symptom` (value: severity 1 mild, 2
/// moderate, 3 severe; unit `{severity}`; timestamp: its onset), an ECG (`kind: ecg`) with its average
/// heart rate as the value and HealthKit's fields (``ecgFields(_:)``), an equipment log entry
/// (`kind: equipment`) with its `item` and `action` and the item's setting as the value. `readings.jsonl` and live
/// traffic
/// both use this one encoder.
package enum ObservationJSON {
    /// A reading as a `POST /api/v1/observations` item (nil for intermediate cuff pressures, which are
    /// progress indications rather than readings).
    package static func encode(_ reading: Reading, start: Int64) -> JSONValue? {
        var fields: [(String, JSONValue)] = [
            ("readingId", .string(reading.id)), ("patientId", .string(reading.patientID)),
            ("deviceId", .string(reading.deviceID)),
        ]
        switch reading.measurement {
        case .cuffPressure, .dailySummary:
            return nil
        case let .bloodPressure(s, d, _, _, _):
            fields += [
                ("kind", .string("blood-pressure")), ("systolic", .int(Int64(s))), ("diastolic", .int(Int64(d))),
            ]
        case let .heartRate(bpm, rr, _, _):
            fields += [("kind", .string("heart-rate")), ("value", .int(Int64(bpm)))]
            if !rr.isEmpty { fields.append(("rrIntervals", .array(rr.map { .double(milliseconds($0)) }))) }
        case let .ecg(recording):
            fields += [("kind", .string("ecg")), ("value", .int(Int64(recording.averageHeartRate)))]
            fields += ecgFields(recording)
        default:
            fields.append(("kind", .string(reading.kind.rawValue)))
            if let method = reading.measurement.feedingMethod { fields.append(("method", .string(method.rawValue))) }
            if let symptom = reading.measurement.symptom { fields.append(("symptom", .string(symptom.rawValue))) }
            if case let .equipment(item, _, action) = reading.measurement {
                fields += [("item", .string(item.rawValue)), ("action", .string(action.rawValue))]
            }
            fields.append(("value", .double(reading.measurement.primaryValue)))
        }
        let ts = CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true)
        fields += [
            ("unit", .string(reading.measurement.unit)), ("timestamp", .string(ts)),
            ("sequence", .int(Int64(reading.seq))),
        ]
        return .object(fields)
    }

    /// An ECG recording's HealthKit fields (`HKElectrocardiogram`): `classification`,
    /// `samplingFrequency` (Hz), `symptomsStatus` (`present` or `none`) and `voltageMeasurements`
    /// (µV, one per sample from the start).
    package static func ecgFields(_ ecgRecording: ECGRecording) -> [(String, JSONValue)] {
        [
            ("classification", .string(ecgRecording.classification.rawValue)),
            ("samplingFrequency", .int(Int64(ecgRecording.samplingFrequency))),
            ("symptomsStatus", .string(ecgRecording.symptomatic ? "present" : "none")),
            ("voltageMeasurements", .array(ecgRecording.microvolts.map { .int(Int64($0)) })),
        ]
    }

    /// An RR interval (1/1024 s, as GATT carries it) in ms to 0.1 ms: every JSON form writes it so.
    package static func milliseconds(_ rr: UInt16) -> Double { (Double(rr) * 1000 / 1024 * 10).rounded() / 10 }

    /// A corrupted observation and the field a SUT must name rejecting it: the JSON forms
    /// (``JSONCorruption``), and for a Bluetooth reading relayed as JSON the counterparts of the GATT
    /// forms (bad flags: an unknown unit; a bad CRC: a negative measurement).
    package static func corrupt(_ json: JSONValue, _ corruption: Corruption) -> ([UInt8], ExpectedRejection) {
        guard case var .object(fields) = json else {
            return (Array(json.serialized().utf8), ExpectedRejection(status: 400, field: ""))
        }
        let measurement = fields.first { $0.0 == "value" || $0.0 == "systolic" }?.0 ?? "value"
        switch corruption {
        case .badFlags:
            if let position = fields.firstIndex(where: { $0.0 == "unit" }) {
                fields[position].1 = .string("bogus-unit")
            }
            return (Array(JSONValue.object(fields).serialized().utf8), ExpectedRejection(status: 400, field: "unit"))
        case .badCRC:
            return corrupt(json, .outOfRange)
        default:
            return JSONCorruption.apply(fields, corruption, measurement: measurement)
                ?? corrupt(json, .truncation)
        }
    }
}
