import VitalSimCore

/// National Early Warning Score 2 (Royal College of Physicians 2017, chart 1), assuming an alert
/// patient breathing air. Inputs are rounded to the chart's resolution first (whole numbers; 0.1 °C),
/// so that values between the charted bands (20.5 /min, 38.05 °C) have a defined score.
enum NEWS2 {
    struct Result {
        var total: Int
        var maxSingle: Int
        var ids: [String]
    }

    /// The score from each parameter's latest value no older than one hour, or nil when any is missing.
    static func score(latest history: PatientAlertState, at time: Int64, scale2: Bool) -> Result? {
        let freshness: Int64 = 3_600_000
        func fresh(_ signal: Signal) -> Sample? {
            guard let latest = history.latest(signal), time - latest.time <= freshness, latest.time <= time else {
                return nil
            }
            return latest
        }
        guard let rr = fresh(.respirationRate), let spo2 = fresh(.spo2), let sbp = fresh(.systolic),
            let hr = fresh(.heartRate), let temp = fresh(.temperature)
        else { return nil }
        let parts = [
            respiration(rounded(rr.value)),
            scale2 ? saturationScale2(rounded(spo2.value)) : saturationScale1(rounded(spo2.value)),
            systolic(rounded(sbp.value)), pulse(rounded(hr.value)), temperature((temp.value * 10).rounded() / 10),
        ]
        return Result(
            total: parts.reduce(0, +),
            maxSingle: parts.max() ?? 0,
            ids: [rr.id, spo2.id, sbp.id, hr.id, temp.id]
        )
    }

    static func rounded(_ x: Double) -> Int { Int(x.rounded(.toNearestOrAwayFromZero)) }

    static func respiration(_ x: Int) -> Int {
        switch x {
        case ...8: 3
        case 9...11: 1
        case 12...20: 0
        case 21...24: 2
        default: 3
        }
    }

    static func saturationScale1(_ x: Int) -> Int {
        switch x {
        case ...91: 3
        case 92...93: 2
        case 94...95: 1
        default: 0
        }
    }

    /// Scale 2 on air: 88–92 and ≥ 93 score 0.
    static func saturationScale2(_ x: Int) -> Int {
        switch x {
        case ...83: 3
        case 84...85: 2
        case 86...87: 1
        default: 0
        }
    }

    static func systolic(_ x: Int) -> Int {
        switch x {
        case ...90: 3
        case 91...100: 2
        case 101...110: 1
        case 111...219: 0
        default: 3
        }
    }

    static func pulse(_ x: Int) -> Int {
        switch x {
        case ...40: 3
        case 41...50: 1
        case 51...90: 0
        case 91...110: 1
        case 111...130: 2
        default: 3
        }
    }

    static func temperature(_ x: Double) -> Int {
        switch x {
        case ..<35.05: 3
        case ..<36.05: 1
        case ..<38.05: 0
        case ..<39.05: 1
        default: 2
        }
    }
}
