/// A setting of a run or a doctor's check that a message can point the user at.
package enum Setting: String, Sendable, CaseIterable {
    case target, header, caFile, insecure, clientCertificate, mqttBroker, alertWait, outageLimit, webhookPort
    case speed, bleMode, hci, bumblePython

    /// The setting in words, as a library user reads it.
    package var words: String {
        switch self {
        case .target: "the target URL"
        case .header: "an extra request header"
        case .caFile: "a CA file"
        case .insecure: "insecure mode"
        case .clientCertificate: "a client certificate and key"
        case .mqttBroker: "HOST:PORT"
        case .alertWait: "alert wait"
        case .outageLimit: "the outage limit"
        case .webhookPort: "a webhook port"
        case .speed: "a finite speed"
        case .bleMode: "a live BLE link"
        case .hci: "HCI controller"
        case .bumblePython: "a Python interpreter with bumble"
        }
    }
}

/// How messages name the settings they point at. The library names them in words; the command
/// line, which alone knows its flags, names the flag that sets each (`--outage-limit`).
package struct SettingNames: Sendable {
    let name: @Sendable (Setting) -> String

    /// - Parameter name: the name of each setting in messages.
    package init(_ name: @escaping @Sendable (Setting) -> String) { self.name = name }

    /// The setting's name in messages.
    package subscript(_ setting: Setting) -> String { name(setting) }

    /// Settings in words.
    package static let words = SettingNames { $0.words }
}
