import VitalSimCore

/// The oracle's NEWS2 (Royal College of Physicians 2017, chart 1, as transcribed in
/// docs/clinical.md §4.6), for an alert patient breathing air. Inputs are rounded to the
/// chart's resolution first (whole numbers; 0.1 °C) so that values between the bands have a score.
package enum NEWS2Chart {
    /// Signal names the score reads, in the order ``total(respiration:spo2:systolic:pulse:temperature:scale2:)`` takes
    /// them.
    static let parameters: [Signal] = [.respirationRate, .spo2, .systolic, .heartRate, .temperature]

    /// The aggregate score.
    package static func total(
        respiration: Double,
        spo2: Double,
        systolic: Double,
        pulse: Double,
        temperature: Double,
        scale2: Bool
    ) -> Int {
        respirationScore(whole(respiration)) + (scale2 ? spo2Scale2(whole(spo2)) : spo2Scale1(whole(spo2)))
            + systolicScore(whole(systolic))
            + pulseScore(whole(pulse)) + temperatureScore(Int((temperature * 10).rounded(.toNearestOrAwayFromZero)))
    }

    static func whole(_ x: Double) -> Int { Int(x.rounded(.toNearestOrAwayFromZero)) }

    /// ≤ 8: 3; 9–11: 1; 12–20: 0; 21–24: 2; ≥ 25: 3.
    static func respirationScore(_ x: Int) -> Int {
        if x <= 8 { return 3 }
        if x <= 11 { return 1 }
        if x <= 20 { return 0 }
        return x <= 24 ? 2 : 3
    }

    /// Scale 1: ≤ 91: 3; 92–93: 2; 94–95: 1; ≥ 96: 0.
    static func spo2Scale1(_ x: Int) -> Int {
        if x <= 91 { return 3 }
        if x <= 93 { return 2 }
        return x <= 95 ? 1 : 0
    }

    /// Scale 2 on air: ≤ 83: 3; 84–85: 2; 86–87: 1; 88–92 and ≥ 93 on air: 0.
    static func spo2Scale2(_ x: Int) -> Int {
        if x <= 83 { return 3 }
        if x <= 85 { return 2 }
        return x <= 87 ? 1 : 0
    }

    /// ≤ 90: 3; 91–100: 2; 101–110: 1; 111–219: 0; ≥ 220: 3.
    static func systolicScore(_ x: Int) -> Int {
        if x <= 90 { return 3 }
        if x <= 100 { return 2 }
        if x <= 110 { return 1 }
        return x <= 219 ? 0 : 3
    }

    /// ≤ 40: 3; 41–50: 1; 51–90: 0; 91–110: 1; 111–130: 2; ≥ 131: 3.
    static func pulseScore(_ x: Int) -> Int {
        if x <= 40 { return 3 }
        if x <= 50 { return 1 }
        if x <= 90 { return 0 }
        if x <= 110 { return 1 }
        return x <= 130 ? 2 : 3
    }

    /// In tenths of °C: ≤ 35.0: 3; 35.1–36.0: 1; 36.1–38.0: 0; 38.1–39.0: 1; ≥ 39.1: 2.
    static func temperatureScore(_ tenths: Int) -> Int {
        if tenths <= 350 { return 3 }
        if tenths <= 360 { return 1 }
        if tenths <= 380 { return 0 }
        return tenths <= 390 ? 1 : 2
    }
}
