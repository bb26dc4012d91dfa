/// Why an MQTT operation failed, with libmosquitto's own explanation.
package enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `mosquitto_new` or an option could not be set up.
    case setup(String)
    /// The TCP/TLS connection to the broker failed.
    case connect(host: String, port: Int, reason: String)
    /// The broker refused the connection (CONNACK reason).
    case refused(reason: String)
    /// No answer from the broker in time.
    case timeout(operation: String, seconds: Double)
    /// A publish or subscribe call failed.
    case operation(String, reason: String)
    /// The connection was lost before the operation completed.
    case disconnected

    package var description: String {
        switch self {
        case let .setup(m): "MQTT set-up failed: \(m)"
        case let .connect(h, p, r):
            "cannot connect to the MQTT broker at \(h):\(p): \(r) (is a broker running there?)"
        case let .refused(r): "the MQTT broker refused the connection: \(r)"
        case let .timeout(op, s): "MQTT \(op) got no answer from the broker within \(s) s"
        case let .operation(op, r): "MQTT \(op) failed: \(r)"
        case .disconnected: "the MQTT connection was lost before the broker acknowledged"
        }
    }
}
