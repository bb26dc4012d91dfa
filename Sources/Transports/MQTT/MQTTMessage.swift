/// One MQTT application message, received or to publish.
package struct MQTTMessage: Sendable, Equatable {
    package var topic: String
    package var payload: [UInt8]
    /// 0, 1 or 2.
    package var qos: Int
    package var retain: Bool
    /// MQTT 5 user properties, in order (names may repeat).
    package var userProperties: [UserProperty]

    package init(
        topic: String,
        payload: [UInt8],
        qos: Int = 1,
        retain: Bool = false,
        userProperties: [UserProperty] = []
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.userProperties = userProperties
    }

    /// The first user property called `name`.
    package func property(_ name: String) -> String? { userProperties.first { $0.name == name }?.value }
}

/// An MQTT 5 user property (a name/value string pair).
package struct UserProperty: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
