import VitalSimCore

/// Exact decimal text <-> (mantissa, exponent).
@usableFromInline
package enum Decimal10 {
    /// 10^`e` by repeated multiplication or division (exact for the exponents SFLOAT and FLOAT carry).
    @usableFromInline
    package static func pow10(_ e: Int) -> Double {
        var power = 1.0
        if e >= 0 { for _ in 0..<e { power *= 10 } } else { for _ in 0..<(-e) { power /= 10 } }
        return power
    }

    /// Mantissa and exponent of decimal text such as `-1.50` or `12E2`; nil when it is not a decimal.
    package static func parse(_ text: String) -> (Int, Int)? {
        var chars = Array(text.trimmingWhitespace())
        guard !chars.isEmpty else { return nil }
        var exp = 0
        if let eIndex = chars.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let exponentValue = Int(String(chars[(eIndex + 1)...])) else { return nil }
            exp = exponentValue
            chars = Array(chars[..<eIndex])
        }
        var negative = false
        if chars.first == "-" || chars.first == "+" {
            negative = chars.first == "-"
            chars.removeFirst()
        }
        var mantissa = 0
        var seenDot = false
        var digits = 0
        for c in chars {
            if c == "." {
                if seenDot { return nil }
                seenDot = true
                continue
            }
            guard let digit = c.wholeNumberValue, c.isASCII else { return nil }
            guard mantissa < Int.max / 20 else { return nil }
            mantissa = mantissa * 10 + digit
            digits += 1
            if seenDot { exp -= 1 }
        }
        guard digits > 0 else { return nil }
        return (negative ? -mantissa : mantissa, exp)
    }

    /// Drops trailing zeros or adds them until the mantissa and exponent fit the format.
    package static func normalize(_ m: inout Int, _ e: inout Int, maxMantissa: Int, exponentRange: ClosedRange<Int>) {
        while abs(m) > maxMantissa, m % 10 == 0 {
            m /= 10
            e += 1
        }
        while e > exponentRange.upperBound, abs(m) * 10 <= maxMantissa {
            m *= 10
            e -= 1
        }
        while e < exponentRange.lowerBound, m % 10 == 0, m != 0 {
            m /= 10
            e += 1
        }
        if m == 0 { e = Swift.min(Swift.max(e, exponentRange.lowerBound), exponentRange.upperBound) }
    }

    /// Exact decimal text of mantissa × 10^exponent.
    package static func format(_ m: Int, _ e: Int) -> String {
        if e >= 0 { return e == 0 ? String(m) : "\(m)E\(e)" }
        let neg = m < 0
        var digits = String(abs(m))
        let frac = -e
        if digits.count <= frac { digits = String(repeating: "0", count: frac - digits.count + 1) + digits }
        let split = digits.index(digits.endIndex, offsetBy: -frac)
        return (neg ? "-" : "") + digits[..<split] + "." + digits[split...]
    }
}
