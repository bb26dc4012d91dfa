extension Duration {
    /// The duration in seconds, with its fractional part.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole microseconds of a latency; a negative duration (a sleep that woke a little before its
    /// due time) counts as no delay.
    package static func nonNegativeMicroseconds(_ d: Duration) -> UInt64 {
        guard d > .zero else { return 0 }
        let parts = d.components
        return UInt64(parts.seconds) * 1_000_000 + UInt64(parts.attoseconds / 1_000_000_000_000)
    }
}
