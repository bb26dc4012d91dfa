import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird server of the harness's own on 127.0.0.1 (the webhook receiver, the live metrics):
/// started, its port known once it listens, stopped by a graceful shutdown — not by cancelling its
/// task, which makes Hummingbird log "Already closed" and "CancellationError" as errors.
enum LoopbackServer {
    /// Serves `router` on 127.0.0.1:`port` (0: any free port); the port it listens on (0 when it
    /// could not listen, already stopped) and how to stop it.
    static func start(
        _ router: Router<BasicRequestContext>,
        port: Int,
        logger: Logger? = nil
    ) async -> (port: Int, stop: @Sendable () -> Void) {
        let (bound, announce) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            },
            logger: logger ?? Logger(label: "Hummingbird")
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        Task {
            try? await group.run()
            announce.finish()
        }
        var listening = 0
        for await p in bound { listening = p }
        let stop: @Sendable () -> Void = { Task { await group.triggerGracefulShutdown() } }
        if listening == 0 { stop() }
        return (listening, stop)
    }
}
