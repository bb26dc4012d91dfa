/// What happened to one planned request.
package struct RequestOutcome: Sendable {
    /// The final HTTP status, nil when no response ever arrived.
    package var status: Int?
    /// The `field` of a 4xx body (`{"error", "field"}`, or a FHIR OperationOutcome's expression).
    package var field: String?
    /// Why the request failed without a response.
    package var error: String?
    package var attempts = 0
    /// Seconds between the first failed attempt and the final answer (0 when the first attempt was answered).
    package var waited = 0.0
    /// The HTTP version of the final answer (`1.1`, `2`), empty for MQTT or no answer.
    package var httpVersion = ""

    /// An outcome; a request not yet answered has no status.
    package init(
        status: Int? = nil,
        field: String? = nil,
        error: String? = nil,
        attempts: Int = 0,
        waited: Double = 0,
        httpVersion: String = ""
    ) {
        self.status = status
        self.field = field
        self.error = error
        self.attempts = attempts
        self.waited = waited
        self.httpVersion = httpVersion
    }
}

/// What became of a request's readings, as a verdict counts them.
package enum ReadingFate: Sendable {
    /// Answered with a 2xx.
    case acknowledged
    /// Answered with any other status.
    case rejected
    /// Never answered.
    case failed

    /// The fate of readings whose request ended with `status` (nil: no answer).
    package init(status: Int?) {
        switch status {
        case nil: self = .failed
        case let answered? where answered < 300: self = .acknowledged
        default: self = .rejected
        }
    }
}
