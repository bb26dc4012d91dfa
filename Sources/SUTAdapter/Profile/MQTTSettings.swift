import Foundation
import Traffic
import VitalSimCore

extension SUTProfile {
    /// MQTT settings (`mqtt:`): a user name and password, and/or a client certificate (with the
    /// broker's CA, `--mqtt-cacert`); the topic template of `transport: mqtt` devices' readings; where
    /// the SUT refuses and confirms MQTT readings.
    package struct MQTTSettings: Sendable, Equatable {
        package var topic = MQTTTopicTemplate.vitalsim
        package var username: String?
        /// The password, read from the environment variable the profile names (`password-env:`).
        package var password: String?
        package var clientCertificate: String?
        package var clientKey: String?
        /// Where and how the SUT refuses an MQTT reading (`rejections:`); nil when it publishes no
        /// refusals (`rejections: none`: expected rejections of MQTT readings are not judged).
        package var rejections: MQTTRejections? = MQTTRejections()
        /// Where and how the SUT confirms stored MQTT readings (`confirmations:`); nil when it
        /// publishes no confirmations (`confirmations: none`).
        package var confirmations: MQTTConfirmations? = MQTTConfirmations()
        /// Whether each message carries its device's credential (`device-credentials:`).
        package var deviceCredentials = DeviceCredentialCarriage.none

        package init() {}

        /// Whether `topic` falls under the MQTT topic `filter` (`+` one level, a final `#` the rest).
        package static func topic(_ topic: String, matches filter: String) -> Bool {
            let filterLevels = filter.split(separator: "/", omittingEmptySubsequences: false)
            let topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)
            for (i, level) in filterLevels.enumerated() {
                if level == "#" { return true }
                guard i < topicLevels.count, level == "+" || level == topicLevels[i] else { return false }
            }
            return filterLevels.count == topicLevels.count
        }
    }

    /// How an MQTT message carries its device's credential (`mqtt.device-credentials:`).
    package enum DeviceCredentialCarriage: String, Sendable, Equatable, CaseIterable {
        /// Not at all: the broker's authentication is all there is (default).
        case none
        /// As MQTT 5 user properties: each header of the device's credential (`auth.devices`), its
        /// name in lower case (`authorization: Bearer …`), as the reference SUT expects.
        case userProperties = "user-properties"
    }

    /// The SUT's refusals of MQTT readings: messages on a topic filter naming the reading, the
    /// status and the field (the reference contract: `errors/+`, `{readingId, status, field}`).
    package struct MQTTRejections: Sendable, Equatable {
        /// The topic filter the refusals are published under.
        package var topic = "errors/+"
        package var readingID = JSONPointer(tokens: ["readingId"])
        /// The status (a number); a refusal without one counts as 400.
        package var status = JSONPointer(tokens: ["status"])
        package var field = JSONPointer(tokens: ["field"])

        package init() {}

        /// Whether `topic` falls under the filter (`+` one level, a final `#` the rest).
        package func matches(_ topic: String) -> Bool { MQTTSettings.topic(topic, matches: self.topic) }

        /// The reading id, status and field of a refusal's payload; nil when it names no reading.
        package func read(_ payload: [UInt8]) -> (reading: String, status: Int, field: String)? {
            guard let document = try? SUTJSON.document(payload),
                let reading = readingID.value(in: document) as? String
            else { return nil }
            let status = (status.value(in: document) as? NSNumber)?.intValue ?? 400
            return (reading, status, field.value(in: document) as? String ?? "")
        }
    }

    /// The SUT's confirmations of stored MQTT readings: messages on a topic filter naming one
    /// reading or several (the reference contract: `acks/+`, `{readingIds: […]}` or `{readingId}`).
    package struct MQTTConfirmations: Sendable, Equatable {
        /// The topic filter the confirmations are published under.
        package var topic = "acks/+"
        /// Where the confirmed reading ids are: each pointer may lead to an id or to a list of ids.
        package var readingIDs = [JSONPointer(tokens: ["readingIds"]), JSONPointer(tokens: ["readingId"])]

        package init() {}

        /// Whether `topic` falls under the filter (`+` one level, a final `#` the rest).
        package func matches(_ topic: String) -> Bool { MQTTSettings.topic(topic, matches: self.topic) }

        /// The reading ids a confirmation's payload names (none when it is not JSON or names none).
        package func read(_ payload: [UInt8]) -> [String] {
            guard let document = try? SUTJSON.document(payload)
            else {
                return []
            }
            var ids: [String] = []
            for pointer in readingIDs {
                switch pointer.value(in: document) {
                case let one as String: ids.append(one)
                case let list as [Any]: ids += list.compactMap { $0 as? String }
                default: continue
                }
            }
            return ids
        }
    }
}

extension SUTProfile {
    /// The topic templates readings may be published on, other than the reference contract's alone
    /// (empty then): `mqtt.topic` and each MQTT route's topic. The embedded reference SUT is started
    /// subscribed to them.
    package var mqttTopics: [MQTTTopicTemplate] {
        var out = [mqtt.topic]
        for route in ingestion.routes.routes where route.overMQTT {
            let topic = route.topic ?? mqtt.topic
            if !out.contains(topic) { out.append(topic) }
        }
        return out == [.vitalsim] ? [] : out
    }
}
