import CCurl
import Foundation
import Locking
import Synchronization

/// A Server-Sent Events client over libcurl: a long-lived GET on its own thread, parsed into events
/// (`id`, `event`, `data`, per the WHATWG event-stream format), reconnecting with `Last-Event-ID`
/// after the stream drops until ``stop()``.
///
/// Sendable: its mutable state is in a `Locked` value; the `@unchecked` is for libcurl's callbacks, which
/// reach the client through `Unmanaged` only inside `curl_easy_perform`, which runs within
/// `withExtendedLifetime(self)` on the easy handle that ``perform()`` creates and cleans up.
package final class SSEClient: @unchecked Sendable {
    /// One dispatched event.
    package struct Event: Sendable, Equatable {
        package var id: String?
        package var event: String?
        package var data: String
    }

    struct State {
        var stopped = false
        var connected = false
        var lastEventID: String?
        var buffer: [UInt8] = []
        var data: [String] = []
        var id: String?
        var event: String?
        /// Bytes of the event being gathered (its `data` lines).
        var eventBytes = 0
        /// Why the stream was stopped at a bound, if it was.
        var problem: String?
        /// Bytes of dispatched events not yet ``SSEClient/taken(_:)`` by the reader.
        var waiting = 0
        /// The reconnection delay in seconds: the server's `retry:` within ``SSEClient/retryBounds``.
        var retry = 0.5
    }

    /// The most bytes of events dispatched and not yet taken by the reader: a server sending
    /// events, alerts or not, faster than the harness reads them is stopped.
    package static let waitingLimit = 8 << 20
    /// The reconnection delays a server's `retry:` may set (shorter or longer ones are clamped).
    static let retryBounds = 0.1...10.0

    /// The longest line, and the largest event, the client gathers: 1 MiB (an alert is a few
    /// hundred bytes). A server sending more without a line break or a blank line is stopped.
    package static let lineLimit = 1 << 20

    let url: String
    let caFile: String?
    let insecure: Bool
    let headers: [String]
    let clientCertificate: ClientCertificate?
    let state = Locked(State())
    let continuation: AsyncStream<Event>.Continuation
    /// Events in arrival order; ends after ``stop()``.
    package let events: AsyncStream<Event>

    package init(
        url: String,
        caFile: String? = nil,
        insecure: Bool = false,
        headers: [String] = [],
        clientCertificate: ClientCertificate? = nil
    ) {
        self.clientCertificate = clientCertificate
        self.url = url
        self.caFile = caFile
        self.insecure = insecure
        self.headers = headers
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// Starts the stream on a new thread; returns once the server has sent its first bytes (or after `wait` seconds).
    package func start(wait: Double = 2) {
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                perform()
                let delay = state.withLock { $0.retry }
                if !state.withLock({ $0.stopped }) { Thread.sleep(forTimeInterval: delay) }
            }
            continuation.finish()
        }
        thread.name = "vitalsim.sse"
        thread.start()
        let deadline = Date(timeIntervalSinceNow: wait)
        while !state.withLock({ $0.connected }), Date() < deadline { usleep(5_000) }
    }

    /// Ends the stream (within about a second: libcurl checks the flag from its progress callback).
    package func stop() { state.withLock { $0.stopped = true } }

    /// True once the server has answered with bytes.
    package var isConnected: Bool { state.withLock { $0.connected } }

    /// Why the stream was stopped at one of the client's bounds (``lineLimit``, ``waitingLimit``),
    /// if it was.
    package var boundReached: String? { state.withLock { $0.problem } }

    /// Tells the client the reader has taken `event` from ``events`` (what ``waitingLimit`` counts).
    package func taken(_ event: Event) {
        state.withLock { $0.waiting -= event.data.utf8.count }
    }

    func perform() {
        _ = HTTPPoster.globalReady
        guard let handle = curl_easy_init() else { return }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Accept: text/event-stream"] { list = curl_slist_append(list, header) }
        if let last = state.withLock({ $0.lastEventID }) { list = curl_slist_append(list, "Last-Event-ID: \(last)") }
        defer { curl_slist_free_all(list) }
        vitalsim_curl_setopt_string(handle, CURLOPT_URL, url)
        vitalsim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        vitalsim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        vitalsim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 5000)
        if let caFile { vitalsim_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        clientCertificate?.apply(to: handle)
        if insecure {
            vitalsim_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            vitalsim_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        // The callbacks' pointer to this client is valid while the transfer runs: `withExtendedLifetime` below.
        let me = Unmanaged.passUnretained(self).toOpaque()
        vitalsim_curl_setopt_write(handle) { data, size, count, user in
            let client = Unmanaged<SSEClient>.fromOpaque(user!).takeUnretainedValue()
            if let data { client.received(UnsafeRawBufferPointer(start: data, count: size * count)) }
            return client.state.withLock { $0.stopped } ? 0 : size * count
        }
        vitalsim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        vitalsim_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        vitalsim_curl_setopt_xferinfo(handle) { user, _, _, _, _ in
            Unmanaged<SSEClient>.fromOpaque(user!).takeUnretainedValue().state.withLock { $0.stopped } ? 1 : 0
        }
        vitalsim_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        withExtendedLifetime(self) { _ = curl_easy_perform(handle) }
    }

    /// Splits the bytes into lines and dispatches events at blank lines; a line or an event past
    /// ``lineLimit`` stops the stream (``boundReached``).
    func received(_ bytes: UnsafeRawBufferPointer) {
        let ready = state.withLock { s -> [Event] in
            s.connected = true
            guard s.problem == nil else { return [] }
            s.buffer.append(contentsOf: bytes)
            var out: [Event] = []
            var start = s.buffer.startIndex
            while let nl = s.buffer[start...].firstIndex(of: 0x0A) {
                var end = nl
                if end > start, s.buffer[end - 1] == 0x0D { end -= 1 }
                let text = String(decoding: s.buffer[start..<end], as: UTF8.self)
                start = nl + 1
                if let event = SSEClient.apply(line: text, to: &s) { out.append(event) }
                if s.eventBytes > SSEClient.lineLimit {
                    s.problem =
                        "the SSE stream \(url) sent an event larger than \(SSEClient.lineLimit >> 20) MiB: the harness stopped reading it"
                }
            }
            s.waiting += out.reduce(0) { $0 + $1.data.utf8.count }
            if s.waiting > SSEClient.waitingLimit {
                s.problem =
                    "the SSE stream \(url) sent events faster than the harness read them (more than \(SSEClient.waitingLimit >> 20) MiB waiting): the harness stopped reading it"
                out = []
            }
            s.buffer.removeSubrange(..<start)
            if s.buffer.count > SSEClient.lineLimit {
                s.problem =
                    "the SSE stream \(url) sent a line longer than \(SSEClient.lineLimit >> 20) MiB: the harness stopped reading it"
            }
            if s.problem != nil {
                s.stopped = true
                s.buffer = []
                s.data = []
            }
            return out
        }
        for e in ready { continuation.yield(e) }
    }

    /// One line of the stream applied to the event being gathered; the event when the line ends it.
    static func apply(line text: String, to s: inout State) -> Event? {
        if text.isEmpty {
            let event = s.data.isEmpty ? nil : Event(id: s.id, event: s.event, data: s.data.joined(separator: "\n"))
            if let id = s.id { s.lastEventID = id }
            s.data = []
            s.event = nil
            s.eventBytes = 0
            return event
        }
        if text.hasPrefix(":") { return nil }
        let (field, value): (Substring, Substring)
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            var v = text[text.index(after: colon)...]
            if v.hasPrefix(" ") { v = v.dropFirst() }
            value = v
        } else {
            (field, value) = (Substring(text), "")
        }
        switch field {
        case "data":
            s.data.append(String(value))
            s.eventBytes += value.utf8.count + 1
        case "id": s.id = String(value)
        case "event": s.event = String(value)
        case "retry":
            // Digits only, as the format says; within the client's bounds.
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                let asked = Double(Int(value.prefix(9)) ?? 0) / 1000
                s.retry = min(max(asked, retryBounds.lowerBound), retryBounds.upperBound)
            }
        default: break
        }
        return nil
    }
}
