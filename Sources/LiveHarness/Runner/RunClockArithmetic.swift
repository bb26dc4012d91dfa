import Clocks

/// The arithmetic of the standard library's own instants (`ContinuousClock.Instant`), for the
/// type-erased instants of the clock a run is measured on (``LiveRunner/clock``).
extension AnyClock.Instant {
    /// The time from `rhs` to `lhs`.
    static func - (lhs: Self, rhs: Self) -> Duration { rhs.duration(to: lhs) }

    /// The instant `rhs` after `lhs`.
    static func + (lhs: Self, rhs: Duration) -> Self { lhs.advanced(by: rhs) }
}
