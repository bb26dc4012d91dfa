import VitalSimCore

/// A rejected request: HTTP 400 with `{"error": …, "field": …}`.
package struct ValidationFailure: Error, Equatable, Sendable {
    package var field: String
    package var message: String
    /// HTTP status: 400 for invalid payloads, 401/403 for credentials.
    package var status: Int = 400

    package init(field: String, message: String, status: Int = 400) {
        self.field = field
        self.message = message
        self.status = status
    }
    package var json: JSONValue { .object([("error", .string(message)), ("field", .string(field))]) }
}
