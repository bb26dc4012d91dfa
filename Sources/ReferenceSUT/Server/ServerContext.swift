import Foundation
import ReferenceEngine

/// What the HTTP routes and the MQTT ingestor share.
package struct ServerContext: Sendable {
    package var store: ReferenceStore
    package var credentials: Credentials
    package var limiter: RateLimiter
    package var faults: FaultPlan
    /// Wall clock in Unix ms, used only to refuse time stamps far in the future.
    package var clock: @Sendable () -> Int64
    /// Wall clock in Unix ms that stamps the audit trail's entries.
    package var auditClock: @Sendable () -> Int64
    /// Each request gets a span of the tracer bootstrapped in `InstrumentationSystem`.
    package var traced: Bool

    package init(
        store: ReferenceStore,
        credentials: Credentials = Credentials(),
        limiter: RateLimiter = RateLimiter(rate: 0),
        faults: FaultPlan = FaultPlan(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        auditClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        traced: Bool = false
    ) {
        self.auditClock = auditClock
        self.traced = traced
        self.store = store
        self.credentials = credentials
        self.limiter = limiter
        self.faults = faults
        self.clock = clock
    }

    package var metrics: ServerMetrics { store.metrics }
}
