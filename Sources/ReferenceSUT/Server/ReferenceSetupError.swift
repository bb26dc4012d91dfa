import Transports

/// Why the reference SUT could not start, with what to do about it.
package enum ReferenceSetupError: Error, Sendable, CustomStringConvertible {
    case storage(StorageError)
    case tls(String)
    case mqtt(MQTTError)
    case server(String)

    package var description: String {
        switch self {
        case let .storage(e): "\(e)"
        case let .tls(m): "TLS: \(m)"
        case let .mqtt(e): "\(e)"
        case let .server(m): "server: \(m)"
        }
    }
}
