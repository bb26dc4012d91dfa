import Foundation
import RunRecord
import VitalSimCore

/// When a stored value is the value that was sent: the units a SUT may store each signal in (UCUM
/// and common spellings, with conversions to VitalSim's unit) and how far a value and a device time
/// may be off (half the resolution of the readings VitalSim generates; a converted value 1 % more,
/// for the rounding of the other unit; a device time 1 s, the resolution of GATT's Date Time).
package enum StoredValueRules {
    /// VitalSim's unit of each signal (UCUM).
    package static func unit(_ signal: Signal) -> String { signal.ucum }

    /// How far a stored value may be from the value sent, in VitalSim's unit.
    package static func tolerance(_ signal: Signal) -> Double {
        switch signal {
        case .temperature: 0.05 + 1e-6
        case .weight: 0.0025 + 1e-6
        // A logged oxygen flow is exact (0.5 L/min, 0.25 L/min): half its finest step.
        case .oxygenFlow: 0.005 + 1e-6
        default: 0.5 + 1e-6
        }
    }

    /// How far a stored device time may be from the time sent, ms.
    package static let timeTolerance: Int64 = 1000

    /// A stored value in VitalSim's unit, and whether it was converted from another unit; nil for a
    /// unit the signal cannot be in.
    package static func canonical(
        _ value: Double,
        unit: String?,
        of signal: Signal
    ) -> (value: Double, converted: Bool)? {
        guard let unit, unit != signal.ucum else { return (value, false) }
        let lowered = unit.trimmingCharacters(in: .whitespaces).lowercased()
        if same(signal).contains(lowered) { return (value, false) }
        guard let factor = conversions(signal)[lowered] else { return nil }
        return (factor(value), true)
    }

    /// Spellings of VitalSim's own unit, lowercased.
    static func same(_ signal: Signal) -> Set<String> {
        switch signal {
        case .heartRate: ["/min", "1/min", "{beats}/min", "beats/min", "bpm"]
        case .respirationRate: ["/min", "1/min", "{breaths}/min", "breaths/min"]
        case .systolic, .diastolic: ["mm[hg]", "mmhg"]
        case .glucose, .cgm: ["mg/dl"]
        case .spo2, .battery: ["%"]
        case .temperature: ["cel", "°c", "degc", "c"]
        case .weight: ["kg"]
        case .feeding: ["ml"]
        case .breastfeeding: ["min"]
        case .steps: ["/d", "{steps}/d", "{steps}", "steps", "1"]
        case .calories: ["kcal"]
        case .palpitations, .dizziness, .chestPain, .shortnessOfBreath, .fainting: ["{severity}", "1", ""]
        case .ecgHeartRate: ["/min", "1/min", "{beats}/min", "beats/min", "bpm"]
        case .ecgAF: ["{af}", "1", ""]
        case .oxygenFlow: ["l/min"]
        case .ngTubeSize: ["[ch]", "fr", "french"]
        case .feedingPumpRate: ["ml/h"]
        }
    }

    /// Other units a signal may be stored in, with their conversion to VitalSim's unit.
    static func conversions(_ signal: Signal) -> [String: @Sendable (Double) -> Double] {
        switch signal {
        case .glucose, .cgm: ["mmol/l": { $0 * 18.0156 }]
        case .temperature: ["[degf]", "°f", "degf", "f"].reduce(into: [:]) { $0[$1] = { ($0 - 32) * 5 / 9 } }
        case .weight:
            [
                "g": { $0 / 1000 }, "[lb_av]": { $0 * 0.453_592_37 }, "lb": { $0 * 0.453_592_37 },
                "lbs": { $0 * 0.453_592_37 },
            ]
        case .feeding: ["l": { $0 * 1000 }, "cl": { $0 * 10 }]
        case .calories: ["kj": { $0 / 4.184 }]
        default: [:]
        }
    }

    /// How a stored reading differs from the entry it was matched with, one phrase per difference
    /// (empty when it is the same).
    package static func differences(
        _ storedDataExpectations: StoredDataExpectations.Entry,
        _ storedReading: StoredReading
    ) -> [String] {
        var out: [String] = []
        if abs(storedReading.time - storedDataExpectations.time) > timeTolerance {
            out.append("device time \(iso(storedDataExpectations.time)) stored as \(iso(storedReading.time))")
        }
        for signal in Signal.allCases {
            guard let sent = storedDataExpectations.values[signal] else { continue }
            guard let raw = storedReading.values[signal] else {
                out.append("\(signal.rawValue) \(text(sent)) \(unit(signal)) not stored")
                continue
            }
            let stored = "\(text(raw)) \(storedReading.units[signal] ?? unit(signal))"
            guard let (value, converted) = canonical(raw, unit: storedReading.units[signal], of: signal) else {
                out.append("\(signal.rawValue) stored as \(stored), a unit VitalSim cannot convert to \(unit(signal))")
                continue
            }
            let allowed = tolerance(signal) + (converted ? abs(sent) * 0.01 : 0)
            if !(abs(value - sent) <= allowed) {
                out.append("\(signal.rawValue) \(text(sent)) \(unit(signal)) stored as \(stored)")
            }
        }
        return out
    }

    /// ISO-8601 UTC text, with milliseconds, of a Unix time in ms.
    static func iso(_ ms: Int64) -> String { CivilTime(unixMilliseconds: ms).iso8601(fractional: true) }

    /// A value without a needless fraction (`72`, `36.8`).
    static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
