/// One HTTP request and its answer: all the harness asks of an HTTP transport. A run uses libcurl
/// (``HTTPMultiClient``); tests answer in memory — the reference SUT's router in-process, or a
/// scripted backend — so that the runner, the alert reads and the lifecycle steps are tested without
/// a socket or a process.
package protocol HTTPExchange: Sendable {
    /// Sends a request (`GET` and `DELETE` without a body, `POST`, `PUT`, `PATCH` with one) and
    /// returns the response, or throws when no response arrived.
    /// - Parameters:
    ///   - headers: header lines as sent, `Name: value`.
    ///   - timeout: seconds before the request is given up.
    func send(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        headers: [String],
        timeout: Double
    ) async throws(HTTPTransportError)
        -> HTTPReply
}

extension HTTPExchange {
    /// POSTs `body` (or sends it with `method`: PUT, PATCH) and returns the response.
    package func post(
        _ url: String,
        body: [UInt8],
        headers: [String] = ["Content-Type: application/json"],
        method: String = "POST",
        timeout: Double = 10
    ) async throws(HTTPTransportError) -> HTTPReply {
        try await send(method, url, body: body, headers: headers, timeout: timeout)
    }

    /// GETs `url` and returns the response.
    package func get(
        _ url: String,
        headers: [String] = [],
        timeout: Double = 10
    ) async throws(HTTPTransportError) -> HTTPReply {
        try await send("GET", url, body: nil, headers: headers, timeout: timeout)
    }
}
