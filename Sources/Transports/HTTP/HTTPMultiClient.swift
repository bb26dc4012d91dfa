import CCurl
import Foundation

/// HTTP(S) through libcurl's multi interface: one event-loop thread drives every transfer, the
/// multi handle keeps the connections alive (at most `maxConnections` to a host), and HTTP/2 is
/// used where the server offers it over TLS (ALPN), multiplexing transfers on one connection.
/// Requests are `async`: callers await their own transfer; many may be in flight at once.
///
/// The client is also a `TaskExecutor`: tasks started with it as their executor preference
/// (`group.addTask(executorPreference: client)`) run on the event-loop thread between transfers, so
/// that a finished transfer resumes its task, and the task's next request reaches libcurl, without
/// waking another thread (what a one-thread event loop such as wrk's saves per request).
///
/// Sendable: the shared state is private to ``locked(_:)``; the multi handle is used only on the
/// event-loop thread, except `curl_multi_wakeup`, which libcurl allows from any thread.
package final class HTTPMultiClient: HTTPExchange, @unchecked Sendable {
    /// Seconds a connection may have been idle and still be reused (`CURLOPT_MAXAGE_CONN`).
    static let maximumIdleSeconds = 20
    struct Job {
        var easy: UnsafeMutableRawPointer
        var headers: UnsafeMutablePointer<curl_slist>?
        /// The write callback's target: retained for the transfer and released by ``finish(_:_:)``,
        /// after the easy handle has left the multi handle, so no callback can reach it afterwards.
        var sink: Unmanaged<HTTPPoster.Sink>
        var url: String
        /// `GET` or `HEAD`: safe to send again when its connection failed before any answer.
        var idempotent: Bool
        /// Whether the transfer was already sent again once (``retryable(_:code:)``).
        var resent = false
        var continuation: CheckedContinuation<Result<HTTPReply, HTTPTransportError>, Never>
    }

    struct State {
        var submitted: [Job] = []
        var running: [Int: Job] = [:]
        var idle: [UnsafeMutableRawPointer] = []
        var stopped = false
        /// Jobs of tasks that prefer this executor, run by the event loop.
        var jobs: [UnownedJob] = []
        /// True while the event loop waits in `curl_multi_poll` (only then does new work wake it).
        var polling = false
    }

    let multi: UnsafeMutableRawPointer
    let caFile: String?
    let insecure: Bool
    /// The certificate presented to servers that require mutual TLS.
    let clientCertificate: ClientCertificate?
    /// False keeps every transfer on HTTP/1.1 (one request per connection at a time) even where
    /// the server offers HTTP/2.
    let http2: Bool
    /// The proxy settings of the environment, read once.
    let proxy = ProxyEnvironment(ProcessInfo.processInfo.environment)
    /// Guarded by `lock` (an `NSLock`: jobs hold raw libcurl pointers, which cannot leave a `Locked` value as
    /// `sending`).
    private var stateStorage = State()
    let lock = NSLock()
    let done = DispatchSemaphore(value: 0)
    /// The event-loop thread (set before it starts; read-only after).
    var loopThread: Thread?

    /// - Parameters:
    ///   - maxConnections: connections per host (HTTP/1.1 keep-alive; HTTP/2 multiplexes on fewer).
    ///   - caFile: PEM bundle to trust for HTTPS; nil uses the system store.
    ///   - insecure: skip certificate verification (only when a user asks for it).
    ///   - http2: use HTTP/2 where the server offers it over TLS; false stays on HTTP/1.1. Off by default:
    ///     libcurl 7.88 (Debian 12) sends RST_STREAM (STREAM_CLOSED) after every finished HTTP/2 stream, and
    ///     servers protected against rapid reset (CVE-2023-44487; swift-nio-http2 after 200 resets in 30 s)
    ///     then close the connection with GOAWAY ENHANCE_YOUR_CALM, failing the requests in flight (a `GET`
    ///     goes out again on a new connection, ``retryable(_:code:)``; a reading's `POST` is the runner's).
    ///   - clientCertificate: presented to servers that require mutual TLS.
    package init(
        maxConnections: Int = 8,
        caFile: String? = nil,
        insecure: Bool = false,
        http2: Bool = false,
        clientCertificate: ClientCertificate? = nil
    ) {
        _ = HTTPPoster.globalReady
        multi = curl_multi_init()!
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.insecure = insecure
        self.http2 = http2
        vitalsim_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnections))
        vitalsim_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        let thread = Thread { [self] in loop() }
        loopThread = thread
        thread.start()
    }

    func locked<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&stateStorage)
    }

    /// Stops the event loop; transfers still running fail. Waits for the loop to end, unless
    /// called from a task running on it (the loop then ends after that task's step).
    package func close() {
        let first = locked { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        curl_multi_wakeup(multi)
        if Thread.current !== loopThread { done.wait() }
    }

    deinit { close() }

    /// Sends a request of any method (`DELETE` without a body, `PUT` with one) and returns the
    /// response, or throws when no response arrived.
    package func send(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        headers: [String] = [],
        timeout: Double = 10
    ) async throws(HTTPTransportError) -> HTTPReply {
        try await perform(url, body: body, headers: headers, method: method, timeout: timeout).get()
    }

    func perform(
        _ url: String,
        body: [UInt8]?,
        headers: [String],
        method: String = "POST",
        timeout: Double
    ) async -> Result<HTTPReply, HTTPTransportError> {
        await withCheckedContinuation { c in
            guard let reused = locked({ $0.stopped ? nil : .some($0.idle.popLast()) }) else {
                c.resume(returning: .failure(HTTPTransportError(reason: "the HTTP client is closed", url: url)))
                return
            }
            let easy = reused ?? newHandle()
            if let unsafe = HTTPBounds.unsafeHeader(headers) {
                locked { $0.idle.append(easy) }
                c.resume(returning: .failure(HTTPTransportError(reason: unsafe, url: url, atBound: true)))
                return
            }
            var list: UnsafeMutablePointer<curl_slist>?
            for header in headers { list = curl_slist_append(list, header) }
            if body != nil, !headers.contains(where: { $0.lowercased().hasPrefix("expect:") }) {
                list = curl_slist_append(list, "Expect:")
            }
            // A reused handle keeps its options (``newHandle()``): only what differs per request
            // is set here, every one of them on every request.
            vitalsim_curl_setopt_string(easy, CURLOPT_URL, url)
            vitalsim_curl_setopt_string(easy, CURLOPT_PROXY, proxy.proxy(for: url))
            if let body {
                vitalsim_curl_setopt_long(easy, CURLOPT_POST, 1)
                vitalsim_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method == "POST" ? nil : method)
                vitalsim_curl_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
                // libcurl keeps its own copy of the body for the transfer.
                _ = body.withUnsafeBufferPointer { raw in
                    vitalsim_curl_setopt_pointer(
                        easy,
                        CURLOPT_COPYPOSTFIELDS,
                        UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    )
                }
            } else {
                vitalsim_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)
                vitalsim_curl_setopt_string(
                    easy,
                    CURLOPT_CUSTOMREQUEST,
                    method == "POST" || method == "GET" ? nil : method
                )
            }
            vitalsim_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
            vitalsim_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
            let sink = Unmanaged.passRetained(HTTPPoster.Sink())
            vitalsim_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, sink.toOpaque())
            let job = Job(
                easy: easy,
                headers: list,
                sink: sink,
                url: url,
                idempotent: body == nil && (method == "GET" || method == "HEAD"),
                continuation: c
            )
            let wake = locked { s -> Bool in
                s.submitted.append(job)
                return s.polling
            }
            if wake { curl_multi_wakeup(multi) }
        }
    }

    /// A new easy handle with the options every request of this client shares: no signals, the
    /// connection's reuse, HTTP version and TLS, the body's sink, no proxy but the environment's.
    /// Handles are reused without `curl_easy_reset`, which would cost every request setting these
    /// again (and libcurl reading the proxy variables of the environment on every transfer): about
    /// 5 % less user CPU a request against an immediate server (docs/performance.md).
    func newHandle() -> UnsafeMutableRawPointer {
        let easy = curl_easy_init()!
        vitalsim_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // A connection idle longer than this is not reused: servers close idle ones (the reference
        // SUT after 30 s; load balancers after a minute or so), and one closing as a request goes
        // out on it fails that request.
        vitalsim_curl_setopt_long(easy, CURLOPT_MAXAGE_CONN, Self.maximumIdleSeconds)
        if http2 {
            vitalsim_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            vitalsim_curl_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        } else {
            vitalsim_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        if let caFile { vitalsim_curl_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        clientCertificate?.apply(to: easy)
        if insecure {
            vitalsim_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0)
            vitalsim_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0)
        }
        vitalsim_curl_setopt_string(easy, CURLOPT_NOPROXY, proxy.noProxy)
        vitalsim_curl_setopt_write(easy) { data, size, count, user in
            let sink = Unmanaged<HTTPPoster.Sink>.fromOpaque(user!).takeUnretainedValue()
            guard let data else { return size * count }
            return sink.append(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        return easy
    }

    /// The event loop: adds submitted transfers, drives them, completes finished ones.
    func loop() {
        // The kernel's name for this thread (top -H, perf, /proc): Foundation's Thread.name is not
        // passed on to it on Linux, and pthread_setname_np is not in Swift's Glibc module.
        _ = try? "vitalsim-http".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        while true {
            let tasks = locked { s -> [UnownedJob] in
                defer { s.jobs.removeAll() }
                return s.jobs
            }
            for task in tasks { task.runSynchronously(on: asUnownedTaskExecutor()) }
            let (jobs, stopped) = locked { s -> ([Job], Bool) in
                defer { s.submitted.removeAll() }
                return (s.submitted, s.stopped)
            }
            if stopped {
                failAll(jobs)
                break
            }
            for job in jobs {
                locked { $0.running[Int(bitPattern: job.easy)] = job }
                curl_multi_add_handle(multi, job.easy)
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            completeFinishedTransfers()
            // Wait for sockets only when no task and no transfer is waiting to be started.
            let idle = locked { s -> Bool in
                s.polling = s.jobs.isEmpty && s.submitted.isEmpty && !s.stopped
                return s.polling
            }
            if idle {
                curl_multi_poll(multi, nil, 0, 1000, nil)
                locked { $0.polling = false }
            }
        }
        let idle = locked { s -> [UnsafeMutableRawPointer] in
            defer { s.idle.removeAll() }
            return s.idle
        }
        for easy in idle { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        done.signal()
    }

    /// On close: fails the running and the not yet started transfers; tasks that still prefer this
    /// executor go on elsewhere.
    func failAll(_ submitted: [Job]) {
        let running = locked { s -> [Job] in
            defer { s.running.removeAll() }
            return Array(s.running.values)
        }
        for job in running { curl_multi_remove_handle(multi, job.easy) }
        for job in running + submitted {
            finish(job, .failure(HTTPTransportError(reason: "the HTTP client was closed", url: job.url)))
        }
        let left = locked { s -> [UnownedJob] in
            defer { s.jobs.removeAll() }
            return s.jobs
        }
        for task in left { globalConcurrentExecutor.enqueue(ExecutorJob(task)) }
    }

    /// Completes every transfer libcurl reports done.
    func completeFinishedTransfers() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            guard let job = locked({ $0.running.removeValue(forKey: Int(bitPattern: easy)) }) else { continue }
            if job.sink.takeUnretainedValue().overflowed {
                finish(job, .failure(HTTPBounds.tooLarge(job.url)))
                continue
            }
            if retryable(job, code: code) {
                var again = job
                again.resent = true
                locked { $0.running[Int(bitPattern: easy)] = again }
                curl_multi_add_handle(multi, easy)
                continue
            }
            guard code == CURLE_OK else {
                finish(
                    job,
                    .failure(HTTPTransportError(reason: String(cString: curl_easy_strerror(code)), url: job.url))
                )
                continue
            }
            var status = 0
            vitalsim_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            var version = 0
            vitalsim_curl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
            let name =
                version == CURL_HTTP_VERSION_2_0
                ? "2" : version == CURL_HTTP_VERSION_1_1 ? "1.1" : version == CURL_HTTP_VERSION_1_0 ? "1.0" : ""
            finish(
                job,
                .success(HTTPReply(status: status, body: job.sink.takeUnretainedValue().bytes, httpVersion: name))
            )
        }
    }

    /// Whether a failed transfer goes out once more: a `GET` or `HEAD`, not yet sent again, that got
    /// not one byte of an answer on a connection it reused, which then failed (HTTP/2 framing or
    /// stream error, a send or receive error, nothing received). A server may end a kept-alive
    /// connection at any time — HTTP/2 `GOAWAY` when it shuts down or, as swift-nio-http2 does after
    /// 200 `RST_STREAM` frames in 30 s, against a rapid-reset flood, which libcurl 7.88 provokes by
    /// resetting every finished stream — and the requests it did not answer are safe to repeat on a
    /// new connection (RFC 9110, section 9.2.2; what browsers and Go's `net/http` do). Readings are
    /// never repeated here: their `POST`s are the runner's to retry.
    func retryable(_ job: Job, code: CURLcode) -> Bool {
        guard job.idempotent, !job.resent, job.sink.takeUnretainedValue().bytes.isEmpty else { return false }
        guard
            [CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING].contains(code)
        else { return false }
        var connects = 0
        vitalsim_curl_getinfo_long(job.easy, CURLINFO_NUM_CONNECTS, &connects)
        return connects == 0
    }

    func finish(_ job: Job, _ result: Result<HTTPReply, HTTPTransportError>) {
        curl_slist_free_all(job.headers)
        job.sink.release()
        locked { s in if s.stopped { curl_easy_cleanup(job.easy) } else { s.idle.append(job.easy) } }
        job.continuation.resume(returning: result)
    }
}

extension HTTPMultiClient: TaskExecutor {
    /// Runs `job` on the event-loop thread (after the client is closed: on the global executor).
    package func enqueue(_ job: consuming ExecutorJob) {
        let task = UnownedJob(job)
        let (accepted, wake) = locked { s -> (Bool, Bool) in
            if s.stopped { return (false, false) }
            s.jobs.append(task)
            return (true, s.polling)
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(task)) }
        if wake { curl_multi_wakeup(multi) }
    }
}
