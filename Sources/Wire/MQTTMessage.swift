/// One MQTT application message, received or to publish.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// 0, 1 or 2.
    public var qos: Int
    public var retain: Bool
    /// MQTT 5 user properties, in order (names may repeat).
    public var userProperties: [UserProperty]

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false, userProperties: [UserProperty] = []) {
        self.topic = topic; self.payload = payload; self.qos = qos; self.retain = retain; self.userProperties = userProperties
    }

    /// The first user property called `name`.
    public func property(_ name: String) -> String? { userProperties.first { $0.name == name }?.value }
}

/// An MQTT 5 user property (a name/value string pair).
public struct UserProperty: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}
