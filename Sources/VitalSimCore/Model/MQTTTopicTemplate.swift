/// The MQTT topic a device's readings are published on, as a template of `/`-separated levels where
/// a whole level may be `{patient}`, `{device}` or `{kind}` (default `vitals/{patient}/{kind}`). The
/// harness fills it in per reading (a SUT profile's `mqtt.topic`); the reference SUT subscribes to its
/// filter (placeholders as `+`) and reads the patient and kind back from a topic (`serve --mqtt-topic`).
public struct MQTTTopicTemplate: Sendable, Equatable, CustomStringConvertible {
    /// The template's levels: a literal, or a placeholder's name.
    enum Level: Sendable, Equatable {
        case literal(String)
        case placeholder(String)
    }

    let levels: [Level]

    /// The reference contract's `vitals/{patient}/{kind}`.
    public static let vitalsim = MQTTTopicTemplate(levels: [
        .literal("vitals"), .placeholder("patient"), .placeholder("kind"),
    ])

    init(levels: [Level]) { self.levels = levels }

    /// Parses a template.
    /// - Throws: a message naming what is wrong (an empty level, a wildcard, an unknown placeholder,
    ///   a placeholder that is not a whole level or appears twice).
    public init(_ text: String) throws(MQTTTopicTemplateError) {
        var levels: [Level] = []
        var seen: Set<String> = []
        for raw in text.split(separator: "/", omittingEmptySubsequences: false).map(String.init) {
            guard !raw.isEmpty else { throw MQTTTopicTemplateError("a topic has no empty level: '\(text)'") }
            guard !raw.contains("+"), !raw.contains("#") else {
                throw MQTTTopicTemplateError("no wildcards (+, #) in a topic: '\(text)'")
            }
            if raw.hasPrefix("{"), raw.hasSuffix("}") {
                let name = String(raw.dropFirst().dropLast())
                guard ["patient", "device", "kind"].contains(name) else {
                    throw MQTTTopicTemplateError("unknown placeholder {\(name)}; valid: {patient}, {device}, {kind}")
                }
                guard seen.insert(name).inserted else {
                    throw MQTTTopicTemplateError("{\(name)} appears twice in '\(text)'")
                }
                levels.append(.placeholder(name))
            } else {
                guard !raw.contains("{"), !raw.contains("}") else {
                    throw MQTTTopicTemplateError(
                        "a placeholder must be a whole level, as in vitals/{patient}/{kind}: '\(text)'"
                    )
                }
                levels.append(.literal(raw))
            }
        }
        self.levels = levels
    }

    /// Whether the template names `placeholder` (`patient`, `device`, `kind`).
    public func names(_ placeholder: String) -> Bool { levels.contains(.placeholder(placeholder)) }

    /// The topic of a reading.
    public func topic(patient: String, device: String, kind: String) -> String {
        levels.map { level in
            switch level {
            case .literal(let literal): literal
            case .placeholder("patient"): patient
            case .placeholder("device"): device
            case .placeholder(_): kind
            }
        }.joined(separator: "/")
    }

    /// The subscription filter: every placeholder a `+`.
    public var filter: String {
        levels.map { if case .literal(let literal) = $0 { literal } else { "+" } }.joined(separator: "/")
    }

    /// The placeholders' values in `topic` (by name), nil when the topic does not fit the template.
    public func match(_ topic: String) -> [String: String]? {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == levels.count else { return nil }
        var out: [String: String] = [:]
        for (level, part) in zip(levels, parts) {
            switch level {
            case .literal(let literal): guard literal == part else { return nil }
            case .placeholder(let name):
                guard !part.isEmpty else { return nil }
                out[name] = part
            }
        }
        return out
    }

    /// The template as written: `vitals/{patient}/{kind}`.
    public var description: String {
        levels.map { level in
            switch level {
            case .literal(let literal): literal
            case .placeholder(let name): "{\(name)}"
            }
        }.joined(separator: "/")
    }
}

/// Why a topic template cannot be used.
public struct MQTTTopicTemplateError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the template.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
