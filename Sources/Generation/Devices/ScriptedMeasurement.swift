import VitalSimCore

/// The measurement a device reports for a scripted reading: the script's values at the device's
/// resolution (whole bpm, mmHg, mg/dL, %, breaths/min and mL; 0.1 °C; 0.005 kg), the rest as a
/// quiet reading of that device would have it (a strap's one RR interval of 60/HR s, a cuff's MAP
/// from its pressures and pulse 70 unless given, a CGM's trend from the ramp, a meter's casual
/// meal code).
enum ScriptedMeasurement {
    static func make(
        _ spec: DeviceSpec,
        _ values: [String: Double],
        at t: Int64,
        slopePerMinute: Double
    ) -> Measurement? {
        func whole(_ key: String, _ fallback: Int = 0) -> Int { values[key].map { Int($0.rounded()) } ?? fallback }
        switch spec.type {
        case .heartRateStrap:
            let bpm = whole("heart-rate")
            return .heartRate(
                bpm: bpm,
                rrIntervals: [UInt16(clamping: Int((60 / Double(max(bpm, 1)) * 1024).rounded()))],
                energyExpended: nil,
                contact: .detected
            )
        case .phoneBridge:
            return .heartRate(bpm: whole("heart-rate"), rrIntervals: [], energyExpended: nil, contact: .notSupported)
        case .bpCuff:
            let systolic = whole("systolic")
            let diastolic = whole("diastolic")
            let map = Int((Double(diastolic) + Double(systolic - diastolic) / 3).rounded())
            return .bloodPressure(
                systolic: systolic,
                diastolic: diastolic,
                meanArterial: map,
                pulse: whole("pulse", 70),
                status: 0
            )
        case .glucometer:
            return .glucose(mgdl: whole("glucose"), meal: 4, status: 0)
        case .cgm:
            let minutes = UInt16(truncatingIfNeeded: t / 60_000)
            return .cgm(
                mgdl: whole("cgm"),
                trend: (slopePerMinute * 10).rounded() / 10,
                quality: 100,
                timeOffset: minutes,
                annunciation: 0
            )
        case .pulseOximeter:
            return .spo2(percent: whole("spo2"), pulse: whole("pulse", 75), continuous: spec.continuous)
        case .thermometer:
            return .temperature(celsius: ((values["temperature"] ?? 0) * 10).rounded() / 10, type: 6)
        case .weightScale:
            return .weight(kg: ((values["weight"] ?? 0) * 200).rounded() / 200)
        case .respirationMonitor:
            return .respirationRate(perMinute: whole("respiration-rate"))
        case .feedingLog:
            return .feeding(mL: whole("feeding"))
        case .symptomDiary, .ecgWatch, .equipmentLog:
            return nil
        }
    }
}
