import Foundation
import Hummingbird
import HummingbirdCore
import Locking
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird server of the harness's own on 127.0.0.1 (the webhook and Subscription receivers,
/// the live metrics): started, its port known once it listens, stopped by a graceful shutdown — not
/// by cancelling its task, which makes Hummingbird log "Already closed" and "CancellationError" as
/// errors. Whatever connects to it cannot exhaust the harness (``ListenerLimits``).
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
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [ConnectionSlotHandler()],
                    idleTimeout: ListenerLimits.idleTimeout
                )
            ),
            configuration: .init(
                address: .hostname("127.0.0.1", port: port),
                backlog: ListenerLimits.backlog,
                availableConnectionsDelegate: SharedConnectionCap()
            ),
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

    /// A request's body, at most `limit` bytes and within ``ListenerLimits/bodyDeadline`` of the
    /// handler's start; or why not (``BodyRefusal/status``: 413 or 408).
    static func body(of request: Request, upTo limit: Int) async -> Result<[UInt8], BodyRefusal> {
        await withTaskGroup(of: Result<[UInt8], BodyRefusal>?.self) { group in
            group.addTask {
                guard let buffer = try? await request.body.collect(upTo: limit) else { return .failure(.tooLarge) }
                return .success(Array(buffer.readableBytesView))
            }
            group.addTask {
                try? await Task.sleep(for: ListenerLimits.bodyDeadline)
                return Task.isCancelled ? nil : .failure(.tooSlow)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.tooSlow)
        }
    }

    /// Why a body was not taken.
    enum BodyRefusal: Error {
        case tooLarge, tooSlow

        /// The status that says so.
        var status: HTTPResponse.Status { self == .tooLarge ? .contentTooLarge : .requestTimeout }
    }
}

/// The limits of every listener the harness runs, so that a peer holding connections open,
/// sending nothing or sending slowly ends as a refusal and never as the harness out of file
/// descriptors or memory:
/// - a connection with nothing read for ``idleTimeout`` is closed (also mid-body);
/// - a body not complete within ``bodyDeadline`` is answered 408;
/// - at most ``connections`` connections are open at once across all listeners of the process:
///   at the cap the listeners go on accepting, and each new connection closes the oldest one
///   without a request in hand (``ConnectionBook``), so the kernel's queue of new connections
///   keeps moving; while every one has a request in hand the listeners stop accepting
///   (new peers wait in the kernel's backlog of ``backlog``) until one closes.
package enum ListenerLimits {
    /// How long a connection may send nothing.
    package static let idleTimeout = TimeAmount.seconds(10)
    /// How long one request's body may take.
    package static let bodyDeadline = Duration.seconds(10)
    /// Pending connections the kernel holds for a listener.
    package static let backlog = 128
    /// Connections open at once across the harness's listeners: a quarter of the process's
    /// descriptor limit, 16 to 256.
    package static let connections: Int = {
        var limit = rlimit()
        let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        return min(256, max(16, soft / 4))
    }()
    /// Connections open now across the harness's listeners.
    static let open = Locked(0)

    /// Raises the process's soft descriptor limit to its hard limit (at most 65,536), as servers do
    /// at start: the default soft limit of 1,024 is far below what a run of many devices uses.
    package static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, 65_536)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = wanted
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// The connection cap of ``ListenerLimits/connections``, shared by every listener of the process.
struct SharedConnectionCap: AvailableConnectionsDelegate {
    mutating func connectionOpened() { ListenerLimits.open.withLock { $0 += 1 } }
    mutating func connectionClosed() { ListenerLimits.open.withLock { $0 -= 1 } }
    /// Below the cap; at it while some connection can be spared (the new one closes it), up to
    /// twice the cap while those closes are under way.
    func isAcceptingNewConnections() -> Bool {
        let open = ListenerLimits.open.withLock { $0 }
        guard open >= ListenerLimits.connections else { return true }
        return open < 2 * ListenerLimits.connections && ListenerLimits.book.withLock { $0.hasSpare }
    }
}
