import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes HTTP/1 connections that hold the server without finishing a request, and answers what
/// the SUT does not serve at the connection level:
/// - a request whose body has not fully arrived `deadline` after its head (a slow body) is answered
///   408 and its connection closed (a slow *header* is closed by Hummingbird's idle timeout, set to
///   the same deadline, which runs from the connection's start until a request head is complete);
/// - `CONNECT` (a proxy tunnel) is answered 405 with `Connection: close`, since after it HTTP/1's
///   parser reads the connection as a tunnel and no answer would ever be framed.
///
/// Confined to its channel's event loop, as every NIO handler.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let deadline: TimeAmount
    /// The 408 timer of the request being read.
    var timer: Scheduled<Void>?
    /// Whether the response to the current request has started (then a 408 cannot be sent).
    var responding = false
    var closing = false

    init(deadline: TimeAmount) { self.deadline = deadline }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case let .head(request):
            if request.method == .connect {
                refuse(context, status: .methodNotAllowed, headers: [.allow: "GET, POST, PUT, DELETE"])
                return
            }
            responding = false
            timer?.cancel()
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: deadline) {
                let (handler, context) = loopBound.value
                handler.refuse(context, status: .requestTimeout, headers: [:])
            }
        case .body:
            break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { responding = true }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    /// Answers `status` (when no response has started) and closes the connection.
    func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, headers: HTTPFields) {
        guard !closing else { return }
        closing = true
        timer?.cancel()
        if !responding {
            var fields = headers
            fields[.connection] = "close"
            fields[.contentLength] = "0"
            context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.flush()
        context.close(promise: nil)
    }
}
