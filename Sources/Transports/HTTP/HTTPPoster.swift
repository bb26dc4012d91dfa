import CCurl
import Dispatch
import Synchronization

/// Why an HTTP request through libcurl failed before a response arrived.
package struct HTTPTransportError: Error, Sendable, CustomStringConvertible {
    /// libcurl's error text (connection refused, certificate problem, timeout, …).
    package var reason: String
    package var url: String
    /// True when the harness stopped the transfer at one of its bounds (``HTTPBounds``): the
    /// answer was too large, or a header could not be sent safely.
    package var atBound = false
    package var description: String { "HTTP request to \(url) failed: \(reason)" }

    package init(reason: String, url: String, atBound: Bool = false) {
        self.reason = reason
        self.url = url
        self.atBound = atBound
    }
}

/// The bounds every HTTP request of the harness keeps, whatever the server answers: a response
/// body is read up to ``responseLimit`` bytes (a larger one ends the transfer), and no header
/// line holding CR, LF or NUL is sent (it would smuggle further header lines into the request).
package enum HTTPBounds {
    /// The most bytes of one response body kept: 16 MiB, about 150,000 alerts in the reference
    /// SUT's shape or 16 pages of 1,000 stored readings.
    package static let responseLimit = 16 << 20

    /// Why `headers` cannot be sent (a line holding CR, LF or NUL), or nil.
    package static func unsafeHeader(_ headers: [String]) -> String? {
        guard let bad = headers.first(where: { $0.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 } })
        else { return nil }
        let name = bad.split(separator: ":", maxSplits: 1).first.map(String.init) ?? bad
        return
            "the header \(name.prefix(60)) holds a line break or NUL, which would add header lines of its own to the request: not sent"
    }

    /// The error of a transfer stopped because its body passed ``responseLimit``.
    static func tooLarge(_ url: String) -> HTTPTransportError {
        HTTPTransportError(
            reason:
                "the answer's body is larger than the harness reads (\(responseLimit >> 20) MiB); the transfer was stopped",
            url: url,
            atBound: true
        )
    }
}

/// A response: status code and body.
package struct HTTPReply: Sendable {
    package var status: Int
    package var body: [UInt8]
    /// The protocol version that carried it: `1.1`, `2` (empty when unknown).
    package var httpVersion = ""

    package init(status: Int, body: [UInt8], httpVersion: String = "") {
        self.status = status
        self.body = body
        self.httpVersion = httpVersion
    }
}

/// Blocking HTTP(S) requests through one libcurl easy handle (so connections are kept alive),
/// performed one at a time on the poster's own dispatch queue — never on Swift's cooperative pool.
///
/// Sendable: the easy handle is used only on that serial queue.
package final class HTTPPoster: @unchecked Sendable {
    static let globalReady: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()

    let queue: DispatchQueue
    let easy: UnsafeMutableRawPointer?
    let caFile: String?
    let insecure: Bool

    /// - Parameters:
    ///   - caFile: PEM bundle to trust for HTTPS (a private CA); nil uses the system store.
    ///   - insecure: skip certificate verification (only when a user asks for it).
    package init(label: String = "vitalsim.http", caFile: String? = nil, insecure: Bool = false) {
        _ = HTTPPoster.globalReady
        queue = DispatchQueue(label: label)
        easy = curl_easy_init()
        self.caFile = caFile
        self.insecure = insecure
    }

    deinit { if let easy { curl_easy_cleanup(easy) } }

    /// A transfer's response body, kept up to ``HTTPBounds/responseLimit``.
    final class Sink {
        var bytes: [UInt8] = []
        var overflowed = false

        /// Keeps `data`; false (stop the transfer) once the body would pass the bound.
        func append(_ data: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count + data.count <= HTTPBounds.responseLimit else {
                overflowed = true
                return false
            }
            bytes.append(contentsOf: data)
            return true
        }
    }

    /// POSTs `body` and returns the response, or throws when no response arrived.
    package func post(
        _ url: String,
        body: [UInt8],
        headers: [String] = ["Content-Type: application/json"],
        timeout: Double = 10
    ) async throws(HTTPTransportError) -> HTTPReply {
        let result: Result<HTTPReply, HTTPTransportError> = await withCheckedContinuation { c in
            queue.async { c.resume(returning: self.perform(url, body: body, headers: headers, timeout: timeout)) }
        }
        return try result.get()
    }

    /// GETs `url` and returns the response, or throws when no response arrived.
    package func get(
        _ url: String,
        headers: [String] = [],
        timeout: Double = 10
    ) async throws(HTTPTransportError) -> HTTPReply {
        let result: Result<HTTPReply, HTTPTransportError> = await withCheckedContinuation { c in
            queue.async { c.resume(returning: self.perform(url, body: nil, headers: headers, timeout: timeout)) }
        }
        return try result.get()
    }

    /// One request on the easy handle: a POST of `body`, or a GET when `body` is nil.
    func perform(
        _ url: String,
        body: [UInt8]?,
        headers: [String],
        timeout: Double
    ) -> Result<HTTPReply, HTTPTransportError> {
        guard let handle = easy else { return .failure(HTTPTransportError(reason: "curl_easy_init failed", url: url)) }
        if let unsafe = HTTPBounds.unsafeHeader(headers) {
            return .failure(HTTPTransportError(reason: unsafe, url: url, atBound: true))
        }
        curl_easy_reset(handle)
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        // No "Expect: 100-continue" round trip before bodies over 1 KiB (batches).
        if body != nil, !headers.contains(where: { $0.lowercased().hasPrefix("expect:") }) {
            list = curl_slist_append(list, "Expect:")
        }
        defer { curl_slist_free_all(list) }
        let sink = Sink()
        let code: CURLcode = (body ?? []).withUnsafeBufferPointer { raw in
            vitalsim_curl_setopt_string(handle, CURLOPT_URL, url)
            if body != nil {
                vitalsim_curl_setopt_long(handle, CURLOPT_POST, 1)
                vitalsim_curl_setopt_pointer(
                    handle,
                    CURLOPT_POSTFIELDS,
                    UnsafeMutableRawPointer(mutating: raw.baseAddress)
                )
                vitalsim_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, raw.count)
            } else {
                vitalsim_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
            }
            vitalsim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
            vitalsim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(timeout * 1000))
            vitalsim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            // HTTP/1.1 keep-alive, not libcurl's default HTTP/2 over TLS (see HTTPMultiClient's `http2`).
            vitalsim_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
            if let caFile { vitalsim_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
            if insecure {
                vitalsim_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
                vitalsim_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
            }
            vitalsim_curl_setopt_write(handle) { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                guard let data else { return size * count }
                return sink.append(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
            }
            // The callback's pointer to the sink is valid while the transfer runs, and used only then.
            vitalsim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        if sink.overflowed { return .failure(HTTPBounds.tooLarge(url)) }
        guard code == CURLE_OK else {
            return .failure(HTTPTransportError(reason: String(cString: curl_easy_strerror(code)), url: url))
        }
        var status = 0
        vitalsim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPReply(status: status, body: sink.bytes))
    }
}
