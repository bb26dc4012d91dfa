import Foundation
import Locking
import Traffic
import Transports

extension Doctor {
    /// What the SUT said of a probe's reading over MQTT.
    enum MQTTVerdict: Sendable, Equatable {
        case confirmed
        case refused(status: Int, field: String)
    }

    /// How long a probe waits for the SUT's confirmation or refusal.
    static let mqttVerdictWait: Duration = .seconds(5)

    /// For each MQTT topic shape the scenario's readings take: one valid message acknowledged by the
    /// broker and not refused by the SUT (confirmed, where it confirms), and the same payload cut in
    /// half refused on the profile's refusals topic. Needs the broker (`--mqtt`); without it the
    /// broker check says so.
    static func mqttProbes(_ probes: [PlannedRequest], target: Target) async -> [Check] {
        guard !probes.isEmpty, let endpoint = target.mqtt else { return [] }
        let mqtt = target.profile.mqtt
        let client: MQTTClient
        do throws(MQTTError) {
            client = try MQTTClient(
                target.mqttCredentials.applied(
                    to: .init(
                        host: endpoint.host,
                        port: endpoint.port,
                        clientID: "vitalsim-doctor-probe-\(getpid())",
                        caFile: target.mqttCAFile
                    )
                )
            )
            try await client.connect()
            if let rejections = mqtt.rejections { try await client.subscribeAcknowledged(rejections.topic, qos: 1) }
            if let confirmations = mqtt.confirmations {
                try await client.subscribeAcknowledged(confirmations.topic, qos: 0)
            }
        } catch {
            return [Check(name: "MQTT probes", passed: false, detail: "\(error)")]
        }
        defer { client.disconnect() }
        let verdicts = Locked<[String: MQTTVerdict]>([:])
        let collector = Task {
            for await m in client.messages {
                if let rejections = mqtt.rejections, rejections.matches(m.topic),
                    let (id, status, field) = rejections.read(m.payload)
                {
                    verdicts.withLock { $0[id] = .refused(status: status, field: field) }
                } else if let confirmations = mqtt.confirmations, confirmations.matches(m.topic) {
                    verdicts.withLock { v in
                        for id in confirmations.read(m.payload) where v[id] == nil { v[id] = .confirmed }
                    }
                }
            }
        }
        defer { collector.cancel() }
        var checks: [Check] = []
        for probe in probes {
            checks += await mqttProbe(probe, client: client, verdicts: verdicts, mqtt: mqtt)
        }
        return checks
    }

    /// One MQTT topic shape's valid and invalid message.
    static func mqttProbe(
        _ probe: PlannedRequest,
        client: MQTTClient,
        verdicts: Locked<[String: MQTTVerdict]>,
        mqtt: SUTProfile.MQTTSettings
    ) async -> [Check] {
        let id = probe.userProperties.first { $0.name == "reading-id" }?.value ?? ""
        let name = "MQTT \(probe.topic ?? "")"
        let properties = probe.userProperties.map { UserProperty($0.name, $0.value) }
        let valid = MQTTMessage(topic: probe.topic ?? "", payload: probe.body, qos: 1, userProperties: properties)
        do throws(MQTTError) { try await client.publish(valid) } catch {
            return [Check(name: "accepts a valid reading on \(name)", passed: false, detail: "\(id): \(error)")]
        }
        let answer = await verdict(of: id, in: verdicts) { _ in true }
        let accepted: Check
        switch answer {
        case .refused(let status, let field)?:
            accepted = Check(
                name: "accepts a valid reading on \(name)",
                passed: false,
                detail: "\(id): refused \(status) naming '\(field)'"
            )
        case .confirmed?:
            accepted = Check(
                name: "accepts a valid reading on \(name)",
                passed: true,
                detail: "\(id): PUBACK, confirmed by the SUT"
            )
        case nil:
            let more = mqtt.confirmations == nil ? "" : " (mqtt.confirmations: none, if the SUT publishes none)"
            accepted = Check(
                name: "accepts a valid reading on \(name)",
                passed: true,
                detail: "\(id): PUBACK; no confirmation within 5 s\(more)"
            )
        }
        guard mqtt.rejections != nil else {
            return [
                accepted,
                Check(
                    name: "refuses an invalid body on \(name)",
                    passed: true,
                    detail: "not checked: mqtt.rejections: none"
                ),
            ]
        }
        verdicts.withLock { $0[id] = nil }
        // A raw GATT value cut in half may still decode (a heart rate keeping some RR intervals): keep
        // only its flags byte (a one-byte value: nothing), which no characteristic accepts.
        let raw = probe.userProperties.contains { $0.name == "characteristic" }
        let kept = raw ? (probe.body.count >= 2 ? 1 : 0) : probe.body.count / 2
        let how = raw ? "the raw value cut to \(kept) byte(s)" : "the payload cut in half"
        let cut = MQTTMessage(
            topic: valid.topic,
            payload: Array(probe.body.prefix(kept)),
            qos: 1,
            userProperties: properties
        )
        do throws(MQTTError) { try await client.publish(cut) } catch {
            return [accepted, Check(name: "refuses an invalid body on \(name)", passed: false, detail: "\(error)")]
        }
        let refusal = await verdict(of: id, in: verdicts) { if case .refused = $0 { true } else { false } }
        let detail: String
        switch refusal {
        case .refused(let status, let field)?: detail = "\(how): refused \(status) naming '\(field)'"
        default: detail = "\(how): PUBACK, and no refusal on \(mqtt.rejections?.topic ?? "") within 5 s"
        }
        let passed = if case .refused(let s, _)? = refusal { (400..<500).contains(s) } else { false }
        return [accepted, Check(name: "refuses an invalid body on \(name)", passed: passed, detail: detail)]
    }

    /// The SUT's verdict on reading `id` that `wanted` accepts, once it arrives (nil after ``mqttVerdictWait``).
    static func verdict(
        of id: String,
        in verdicts: Locked<[String: MQTTVerdict]>,
        wanted: @Sendable (MQTTVerdict) -> Bool
    ) async -> MQTTVerdict? {
        let deadline = ContinuousClock.now + mqttVerdictWait
        while ContinuousClock.now < deadline {
            if let verdict = verdicts.withLock({ $0[id] }), wanted(verdict) { return verdict }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
