import Locking

/// Per-device token buckets: `rate` readings per second with bursts up to `burst`. Measured on
/// the monotonic clock (rate limiting protects the server; it shapes no generated traffic).
package final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    package let rate: Double
    package let burst: Double
    let buckets = Locked([String: Bucket]())
    /// The monotonic clock's reading (a test holds it still).
    let clock: @Sendable () -> ContinuousClock.Instant

    /// `rate` 0 disables limiting.
    package init(
        rate: Double,
        burst: Double? = nil,
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.rate = rate
        self.burst = burst ?? max(1, rate * 2)
        self.clock = clock
    }

    /// Takes `cost` tokens for `key`; returns nil when allowed, or the seconds to wait before retrying.
    package func take(_ key: String, cost: Double = 1) -> Double? {
        guard rate > 0 else { return nil }
        let now = clock()
        return buckets.withLock { all -> Double? in
            var bucket = all[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(
                burst,
                bucket.tokens + rate
                    * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            )
            bucket.updated = now
            defer { all[key] = bucket }
            let need = min(cost, burst)
            if bucket.tokens >= need {
                bucket.tokens -= need
                return nil
            }
            return (need - bucket.tokens) / rate
        }
    }
}
