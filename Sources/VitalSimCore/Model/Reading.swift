/// One measurement as a simulated device emits it.
///
/// Times are virtual milliseconds since the scenario start: `measuredAt` is when the
/// physiology was sampled, `deviceTime` what the device stamps (differs under clock skew), and
/// `intendedEmitTime` when the schedule says the payload must leave the device.
public struct Reading: Sendable, Equatable {
    /// Who produced the reading (shared by all readings of a device, so copies stay cheap).
    public let source: DeviceIdentity
    /// Stable id, `PATIENT/DEVICE/SEQ`, or `PATIENT/DEVICE/KIND/SEQ` for a device's secondary readings
    /// (battery, cuff pressure, daily summary). A duplicate delivery keeps the id of its original.
    public var id: String { "\(source.patientID)/\(source.deviceID)/\(secondary ? kind.idPrefix : "")\(seq)" }
    /// True for readings that are not the device's main kind (they get a `KIND/` id prefix).
    public var secondary: Bool
    /// The patient the reading belongs to.
    public var patientID: String { source.patientID }
    /// The device that measured it.
    public var deviceID: String { source.deviceID }
    /// The device's type.
    public var deviceType: DeviceType { source.deviceType }
    /// The device's sequence number of the reading.
    public var seq: UInt32
    /// When the quantity was measured (virtual ms from the scenario start).
    public var measuredAt: Int64
    /// The time stamp the device writes (virtual ms; differs from `measuredAt` under clock skew).
    public var deviceTime: Int64
    /// When the schedule says the reading leaves the device (virtual ms); latency is measured from it.
    public var intendedEmitTime: Int64
    /// The measured values.
    public var measurement: Measurement
    /// The noiseless physiological value behind the measurement (ground truth), in `measurement.unit`.
    public var truth: Double
    /// How the payload travels: normal, backfilled after a reconnect, duplicated, reordered, corrupted.
    public var delivery: Delivery

    /// A value with every field given.
    public init(
        source: DeviceIdentity,
        secondary: Bool = false,
        seq: UInt32,
        measuredAt: Int64,
        deviceTime: Int64,
        intendedEmitTime: Int64,
        measurement: Measurement,
        truth: Double,
        delivery: Delivery = Delivery()
    ) {
        self.source = source
        self.secondary = secondary
        self.seq = seq
        self.measuredAt = measuredAt
        self.deviceTime = deviceTime
        self.intendedEmitTime = intendedEmitTime
        self.measurement = measurement
        self.truth = truth
        self.delivery = delivery
    }

    /// The reading's kind.
    public var kind: VitalKind { measurement.kind }

    /// Two values are equal when every field is.
    public static func == (a: Reading, b: Reading) -> Bool {
        a.source == b.source && a.secondary == b.secondary && a.seq == b.seq && a.measuredAt == b.measuredAt
            && a.deviceTime == b.deviceTime
            && a.intendedEmitTime == b.intendedEmitTime && a.measurement == b.measurement && a.truth == b.truth
            && a.delivery == b.delivery
    }
}

/// The patient, device id and device type behind readings.
public final class DeviceIdentity: Sendable, Equatable {
    /// The patient the reading belongs to.
    public let patientID: String
    /// The device that measured it.
    public let deviceID: String
    /// The device's type.
    public let deviceType: DeviceType
    /// A value with every field given.
    public init(patientID: String, deviceID: String, deviceType: DeviceType) {
        self.patientID = patientID
        self.deviceID = deviceID
        self.deviceType = deviceType
    }
    /// Two values are equal when every field is.
    public static func == (a: DeviceIdentity, b: DeviceIdentity) -> Bool {
        a === b || (a.patientID == b.patientID && a.deviceID == b.deviceID && a.deviceType == b.deviceType)
    }
}

/// Delivery annotations set by device faults.
public struct Delivery: Sendable, Equatable {
    /// Sent after a disconnection, from the device's store.
    public var backfill = false
    /// A repeated delivery of a reading already sent.
    public var duplicate = false
    /// Delivered after a later reading.
    public var outOfOrder = false
    /// The deliberate corruption of its payload, if any.
    public var corruption: Corruption?
    /// A value with every field given.
    public init(
        backfill: Bool = false,
        duplicate: Bool = false,
        outOfOrder: Bool = false,
        corruption: Corruption? = nil
    ) {
        self.backfill = backfill
        self.duplicate = duplicate
        self.outOfOrder = outOfOrder
        self.corruption = corruption
    }
    /// Labels for the JSONL `delivery` field, e.g. `["backfill", "corrupt:bad-crc"]`.
    public var labels: [String] {
        var out: [String] = []
        if backfill { out.append("backfill") }
        if duplicate { out.append("duplicate") }
        if outOfOrder { out.append("out-of-order") }
        if let corruption { out.append("corrupt:" + corruption.rawValue) }
        return out
    }
}

/// Ways a payload can be corrupted on purpose: the GATT forms for a Bluetooth device's bytes, the
/// JSON forms for a JSON payload (VitalEdge, observation JSON), `truncation` for both.
public enum Corruption: String, Sendable, CaseIterable {
    /// GATT: a reserved flag bit set (relayed as JSON: an unknown unit).
    case badFlags = "bad-flags"
    /// The payload cut short: a GATT value one byte short, a JSON body cut in half.
    case truncation
    /// GATT: a wrong E2E-CRC (relayed as JSON: a negative measurement).
    case badCRC = "bad-crc"
    /// JSON: the measurement as a string (`"heartRate": "72"`).
    case wrongType = "wrong-type"
    /// JSON: the measurement field left out.
    case missingField = "missing-field"
    /// JSON: a measurement no body can have (−1).
    case outOfRange = "out-of-range"
    /// JSON: a time stamp that is not ISO 8601 (`07/11/2024 09:00:00`).
    case badTimestamp = "bad-timestamp"
    /// JSON: a time stamp 100 years ahead.
    case futureTimestamp = "future-timestamp"
    /// JSON: a field the payload does not define (`unexpectedField`).
    case unknownField = "unknown-field"
    /// JSON, in a scenario only: each corrupted reading takes the next of ``jsonForms`` in turn.
    case mixed
    /// JSON from a phone bridge: the user's id as a number (`"userId": 501`, a string in the VitalEdge SDS
    /// §3.3.1; `patientId` in observation JSON).
    case badUserID = "bad-user-id"
    /// JSON from a phone bridge: a daily summary's `caloriesBurned` −1; a payload without calories
    /// (the phone's heart rate) takes the out-of-range form instead.
    case badCalories = "bad-calories"

    /// The corruptions of GATT bytes.
    public static let gattForms: [Corruption] = [.badFlags, .truncation, .badCRC]
    /// The invalid forms of a phone bridge's other fields (not taken by `mixed`).
    public static let phoneForms: [Corruption] = [.badUserID, .badCalories]
    /// The invalid JSON forms a backend must refuse, in the order `mixed` takes them.
    public static let jsonForms: [Corruption] = [
        .wrongType, .missingField, .outOfRange, .badTimestamp, .futureTimestamp, .unknownField, .truncation,
    ]
}

/// The kinds of vital signs VitalSim emits.
public enum VitalKind: String, Sendable, CaseIterable {
    case heartRate = "heart-rate"
    case bloodPressure = "blood-pressure"
    case cuffPressure = "cuff-pressure"
    case glucose
    case cgm
    case spo2
    case temperature
    case weight
    case battery
    case dailySummary = "daily-summary"
    case feeding
    case respirationRate = "respiration-rate"
    case symptom
    case ecg
    case equipment

    /// Position in `allCases` (for array-indexed counters on hot paths).
    public var ordinal: Int {
        switch self {
        case .heartRate: 0
        case .bloodPressure: 1
        case .cuffPressure: 2
        case .glucose: 3
        case .cgm: 4
        case .spo2: 5
        case .temperature: 6
        case .weight: 7
        case .battery: 8
        case .dailySummary: 9
        case .feeding: 10
        case .respirationRate: 11
        case .symptom: 12
        case .ecg: 13
        case .equipment: 14
        }
    }

    /// The `KIND/` id prefix of secondary readings.
    public var idPrefix: String {
        switch self {
        case .heartRate: "heart-rate/"
        case .bloodPressure: "blood-pressure/"
        case .cuffPressure: "cuff-pressure/"
        case .glucose: "glucose/"
        case .cgm: "cgm/"
        case .spo2: "spo2/"
        case .temperature: "temperature/"
        case .weight: "weight/"
        case .battery: "battery/"
        case .dailySummary: "daily-summary/"
        case .feeding: "feeding/"
        case .respirationRate: "respiration-rate/"
        case .symptom: "symptom/"
        case .ecg: "ecg/"
        case .equipment: "equipment/"
        }
    }
}

/// Heart Rate sensor contact status as in the Heart Rate Measurement flags.
public enum SensorContact: String, Sendable {
    case notSupported = "not-supported"
    case notDetected = "not-detected"
    case detected
}

/// The value part of a reading, with the details each wire format needs.
public enum Measurement: Sendable, Equatable {
    /// Heart rate in bpm with RR intervals in 1/1024 s, cumulative energy expended (kJ) when sent.
    case heartRate(bpm: Int, rrIntervals: [UInt16], energyExpended: UInt16?, contact: SensorContact)
    /// Blood pressure in mmHg, pulse in bpm, BLS Measurement Status bits.
    case bloodPressure(systolic: Int, diastolic: Int, meanArterial: Int, pulse: Int, status: UInt16)
    /// Intermediate cuff pressure in mmHg while the cuff inflates.
    case cuffPressure(mmHg: Int)
    /// A fingerstick glucose record: mg/dL, GLS meal code (1 pre, 2 post, 3 fasting, 4 casual, 5 bedtime), status bits.
    case glucose(mgdl: Int, meal: UInt8, status: UInt16)
    /// A CGM record: mg/dL (clamped to 40...400), trend mg/dL/min, quality %, minutes since session start, 24-bit
    /// annunciation.
    case cgm(mgdl: Int, trend: Double, quality: Int, timeOffset: UInt16, annunciation: UInt32)
    /// SpO2 % and pulse bpm; `continuous` selects PLX Continuous rather than Spot-check.
    case spo2(percent: Int, pulse: Int, continuous: Bool)
    /// Body temperature in °C at 0.1 °C resolution, with the GATT Temperature Type code.
    case temperature(celsius: Double, type: UInt8)
    /// Body weight in kg (0.005 kg resolution).
    case weight(kg: Double)
    /// Battery level %.
    case battery(percent: Int)
    /// VitalEdge daily summary: steps and active calories (kcal) of the day that just ended.
    case dailySummary(steps: Int, calories: Int)
    /// A logged bottle feed, mL.
    case feeding(mL: Int)
    /// A logged breastfeed, whole minutes at the breast (the Health Hearts SRS's "breast/bottle").
    case breastfeeding(minutes: Int)
    /// Respiration rate, whole breaths per minute.
    case respirationRate(perMinute: Int)
    /// A symptom the patient reports, with its severity (the reading's time is the symptom's onset).
    case symptom(SymptomKind, severity: SymptomSeverity)
    /// A single-lead ECG recording (the reading's time is its start).
    case ecg(ECGRecording)
    /// An equipment log entry: the item, its setting (in the item's unit) and what was done.
    case equipment(EquipmentItem, setting: Double, action: EquipmentAction)

    /// The kind of this measurement.
    public var kind: VitalKind {
        switch self {
        case .heartRate: .heartRate
        case .bloodPressure: .bloodPressure
        case .cuffPressure: .cuffPressure
        case .glucose: .glucose
        case .cgm: .cgm
        case .spo2: .spo2
        case .temperature: .temperature
        case .weight: .weight
        case .battery: .battery
        case .dailySummary: .dailySummary
        case .feeding, .breastfeeding: .feeding
        case .respirationRate: .respirationRate
        case .symptom: .symptom
        case .ecg: .ecg
        case .equipment: .equipment
        }
    }

    /// The primary value (heart rate, systolic, glucose, SpO2, °C, kg, %, steps, mL, breaths/min; a
    /// breastfeed's minutes; a symptom's severity, 1...3; an ECG's average heart rate).
    public var primaryValue: Double {
        switch self {
        case let .heartRate(bpm, _, _, _): Double(bpm)
        case let .bloodPressure(s, _, _, _, _): Double(s)
        case let .cuffPressure(p): Double(p)
        case let .glucose(g, _, _): Double(g)
        case let .cgm(g, _, _, _, _): Double(g)
        case let .spo2(p, _, _): Double(p)
        case let .temperature(c, _): c
        case let .weight(kg): kg
        case let .battery(p): Double(p)
        case let .dailySummary(steps, _): Double(steps)
        case let .feeding(ml): Double(ml)
        case let .breastfeeding(minutes): Double(minutes)
        case let .respirationRate(n): Double(n)
        case let .symptom(_, severity): Double(severity.rawValue)
        case let .ecg(recording): Double(recording.averageHeartRate)
        case let .equipment(_, setting, _): setting
        }
    }

    /// How a feed was given (`bottle` or `breast`, as its payloads name it); nil for other readings.
    public var feedingMethod: FeedingMethod? {
        switch self {
        case .feeding: .bottle
        case .breastfeeding: .breast
        default: nil
        }
    }

    /// The UCUM unit of ``primaryValue``.
    public var unit: String {
        if case .breastfeeding = self { return "min" }
        if case let .equipment(item, _, _) = self { return item.signal.ucum }
        return switch kind {
        case .heartRate, .respirationRate, .ecg: "/min"
        case .bloodPressure, .cuffPressure: "mm[Hg]"
        case .glucose, .cgm: "mg/dL"
        case .spo2, .battery: "%"
        case .temperature: "Cel"
        case .weight: "kg"
        case .dailySummary: "{steps}"
        case .feeding: "mL"
        case .symptom: "{severity}"
        case .equipment: "1"
        }
    }

    /// The symptom reported, if this is a symptom report.
    public var symptom: SymptomKind? {
        if case let .symptom(kind, _) = self { return kind }
        return nil
    }
}
