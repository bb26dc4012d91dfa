#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, deterministic wrappers over the C math library (so the rest of the code needs no Foundation).
package enum Math {
    @inlinable package static func log(_ x: Double) -> Double { Glibc.log(x) }
    @inlinable package static func exp(_ x: Double) -> Double { Glibc.exp(x) }
    @inlinable package static func sin(_ x: Double) -> Double { Glibc.sin(x) }
    @inlinable package static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    @inlinable package static func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
    @inlinable package static func sqrt(_ x: Double) -> Double { x.squareRoot() }
    @inlinable package static func atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }
    @inlinable package static func sinh(_ x: Double) -> Double { Glibc.sinh(x) }
    @inlinable package static func tanh(_ x: Double) -> Double { Glibc.tanh(x) }
    /// Smooth step from 0 (x ≤ 0) to 1 (x ≥ 1).
    @inlinable package static func smoothstep(_ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        return x * x * (3 - 2 * x)
    }
    /// The middle value of `values` (the mean of the two middle ones for an even count; 0 for none).
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    /// Clamps `x` into `lo...hi`.
    @inlinable package static func clamp(_ x: Double, _ lo: Double, _ hi: Double) -> Double {
        Swift.min(Swift.max(x, lo), hi)
    }
    /// `a / b` rounded towards negative infinity (`b` > 0): the day of a time before 1970 too.
    @inlinable package static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }
}
