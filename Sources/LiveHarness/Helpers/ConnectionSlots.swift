import HummingbirdCore
import Locking
import NIOCore
import NIOHTTPTypes

/// The connections open on the harness's listeners, oldest first, and how far each has got. At
/// the cap (``ListenerLimits/connections``) a new connection makes room by closing the oldest one
/// that holds a slot without a request in hand: one that has never completed a request first (a
/// peer that connected and sends nothing, or stalls in its body), then one idle between requests.
/// A peer that connects and waits therefore cannot keep the SUT's own pushes out: the SUT sends
/// its request as soon as it connects, and a request in hand is never cut.
///
/// Generic over what identifies a connection, so the policy is tested without sockets.
package struct ConnectionBook<Handle> {
    struct Entry {
        let number: Int
        let handle: Handle
        var requests = 0
        var responses = 0

        /// A request read in full and not yet answered in full.
        var busy: Bool { requests > responses }
    }

    /// The open connections, oldest first.
    private var entries: [Entry] = []
    private var opened = 0
    /// Connections kept open at once; a new one past it closes another.
    package let cap: Int

    /// An empty book of at most `cap` connections.
    package init(cap: Int) { self.cap = cap }

    /// Connections open now.
    package var count: Int { entries.count }

    /// Whether some open connection can be closed to make room: one without a request in hand.
    package var hasSpare: Bool { entries.contains { !$0.busy } }

    /// Registers a connection; its number (for the calls that follow) and the connection to close
    /// to make room for it, if the cap is reached and one can be spared.
    package mutating func open(_ handle: Handle) -> (number: Int, evict: Handle?) {
        opened += 1
        var evict: Handle?
        if entries.count >= cap {
            let spare =
                entries.firstIndex { $0.requests == 0 && !$0.busy } ?? entries.firstIndex { !$0.busy }
            if let spare { evict = entries.remove(at: spare).handle }
        }
        entries.append(Entry(number: opened, handle: handle))
        return (opened, evict)
    }

    /// A request on connection `number` was read in full.
    package mutating func requestEnded(_ number: Int) { update(number) { $0.requests += 1 } }

    /// A response on connection `number` was written in full.
    package mutating func responseEnded(_ number: Int) { update(number) { $0.responses += 1 } }

    /// Connection `number` closed (or was closed to make room: then it is already gone).
    package mutating func closed(_ number: Int) { entries.removeAll { $0.number == number } }

    private mutating func update(_ number: Int, _ change: (inout Entry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.number == number }) else { return }
        change(&entries[index])
    }
}

extension ConnectionBook: Sendable where Handle: Sendable {}
extension ConnectionBook.Entry: Sendable where Handle: Sendable {}

extension ListenerLimits {
    /// Every open connection of the process's listeners.
    static let book = Locked(ConnectionBook<any Channel>(cap: connections))
}

/// Keeps ``ListenerLimits/book`` up to date for one connection: placed after the HTTP/1 decoder,
/// it sees where each request and response ends; when added it may close another connection to
/// make room for its own.
final class ConnectionSlotHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var number = 0

    func handlerAdded(context: ChannelHandlerContext) {
        let (number, evict) = ListenerLimits.book.withLock { $0.open(context.channel) }
        self.number = number
        evict?.close(promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        let number = self.number
        ListenerLimits.book.withLock { $0.closed(number) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            let number = self.number
            ListenerLimits.book.withLock { $0.requestEnded(number) }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            let number = self.number
            ListenerLimits.book.withLock { $0.responseEnded(number) }
        }
        context.write(data, promise: promise)
    }
}
