import Foundation
import ReferenceEngine

/// What the HTTP routes and the MQTT ingestor share.
public struct ServerContext: Sendable {
    public var store: ReferenceStore
    public var credentials: Credentials
    public var limiter: RateLimiter
    public var faults: FaultPlan
    /// Wall clock in Unix ms, used only to refuse time stamps far in the future.
    public var clock: @Sendable () -> Int64

    public init(store: ReferenceStore, credentials: Credentials = Credentials(), limiter: RateLimiter = RateLimiter(rate: 0),
                faults: FaultPlan = FaultPlan(), clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.store = store; self.credentials = credentials; self.limiter = limiter; self.faults = faults; self.clock = clock
    }

    public var metrics: ServerMetrics { store.metrics }
}
