import VitalSimCore

/// The error a factory-calibrated CGM sensor adds to interstitial glucose: the model of
/// Facchinetti et al. 2014 (IEEE TBME 61:620) as identified on Dexcom G6 data by Vettoretti et
/// al. 2019 (Sensors 19:5320; mean parameter vector as distributed with ReplayBG):
///
///     CGM(t) = a(d)·IG(t) + b + v(t),   a(d) = a0 + a1·d + a2·d²   (d: days since sensor start)
///     v[k] = φ1·v[k−1] + φ2·v[k−2] + σ·w[k]   (every 5 min, w standard normal)
///
/// with a0 0.9423, a1 0.00494/day, a2 −0.000585/day², b 6.38 mg/dL, φ1 1.2604, φ2 −0.4022,
/// σ 3.25 mg/dL (an output noise SD of 8.1 mg/dL). The noise is a slow, smooth process: a 5-minute
/// step moves it by 3.6 mg/dL (SD), so a flat glucose reads flat and the trend stays "constant".
/// Sensors reporting more often than every 5 minutes read the noise between its 5-minute values by
/// a cubic (Catmull–Rom) curve through them, as simglucose does for its 15-minute noise, so a
/// 1-minute sensor is no rougher than the 5-minute one it refines.
struct CGMSensorError {
    static let a0 = 0.9423, a1 = 0.00494, a2 = -0.000585, b = 6.38
    static let phi1 = 1.2604, phi2 = -0.4022, sigma = 3.2516
    /// Grid spacing of the noise process (ms).
    static let step: Int64 = 300_000

    /// The stationary SD of the AR(2) noise (mg/dL).
    static var outputSD: Double {
        let variance = sigma * sigma * (1 - phi2) / ((1 + phi2) * ((1 - phi2) * (1 - phi2) - phi1 * phi1))
        return variance.squareRoot()
    }

    var rng: SeededRandom
    /// Noise values at grid points `first`, `first + 1`, …
    var values: [Double] = []
    var first: Int64 = -1

    init(rng: SeededRandom) {
        self.rng = rng
        // Start from the stationary distribution: v[−1] and v[0] with the process's lag-1 correlation.
        let rho1 = Self.phi1 / (1 - Self.phi2)
        let v0 = Self.outputSD * self.rng.normal()
        let v1 = rho1 * v0 + Self.outputSD * (1 - rho1 * rho1).squareRoot() * self.rng.normal()
        values = [v0, v1]
    }

    /// Calibration gain at `t` (ms since the sensor started).
    static func gain(at t: Int64) -> Double {
        let d = Double(t) / 86_400_000
        return a0 + a1 * d + a2 * d * d
    }

    /// The sensor's reading of interstitial glucose `ig` at `t` (ms since the sensor started,
    /// non-decreasing between calls) before limits and rounding, and its noise there in units of
    /// ``outputSD``.
    mutating func reading(of ig: Double, at t: Int64) -> (value: Double, noise: Double) {
        let v = noise(at: max(0, t))
        return (Self.gain(at: max(0, t)) * ig + Self.b + v, v / Self.outputSD)
    }

    /// The noise at `t`: the Catmull–Rom curve through the grid values around it.
    mutating func noise(at t: Int64) -> Double {
        // Times before the kept grid (never the case for a device measuring in order) read its start.
        let k = max(t / Self.step, first + 1)
        let f = Math.clamp(Double(t - k * Self.step) / Double(Self.step), 0, 1)
        // Grid values k−1 … k+2 are needed; grid point g lives at values[g − first].
        extend(to: k + 2)
        if k - 1 > first + 2 {
            let drop = Int(k - 1 - first)
            values.removeFirst(drop)
            first += Int64(drop)
        }
        let i = Int(k - first)
        let (p0, p1, p2, p3) = (values[i - 1], values[i], values[i + 1], values[i + 2])
        let f2 = f * f
        let f3 = f2 * f
        return 0.5 * (2 * p1 + (p2 - p0) * f + (2 * p0 - 5 * p1 + 4 * p2 - p3) * f2 + (3 * p1 - p0 - 3 * p2 + p3) * f3)
    }

    private mutating func extend(to k: Int64) {
        while first + Int64(values.count) - 1 < k {
            let n = values.count
            values.append(Self.phi1 * values[n - 1] + Self.phi2 * values[n - 2] + Self.sigma * rng.normal())
        }
    }
}
