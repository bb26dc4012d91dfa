import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports

extension LiveRunner {
    /// The topic of the broker's drop counter (mosquitto `$SYS`).
    static let droppedTopic = "$SYS/broker/publish/messages/dropped"

    /// Collects the SUT's verdicts on MQTT messages: rejections (by default `{readingId, status,
    /// error, field}` on `errors/{patientId}`; the profile's `mqtt.rejections`), confirmations (by
    /// default `{readingId}` or `{readingIds: […]}` on `acks/{patientId}`; `mqtt.confirmations`), and
    /// the broker's drop counter when subscribed to it.
    func collectVerdicts(_ mqtt: any MQTTSession, _ shared: State) async {
        for await message in mqtt.messages {
            if message.topic == LiveRunner.droppedTopic {
                if let dropped = Int(
                    String(decoding: message.payload, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                ) {
                    shared.withLock { $0.brokerDropped = dropped }
                }
                continue
            }
            if let rejections, rejections.matches(message.topic) {
                guard let (wire, status, field) = rejections.read(message.payload) else { continue }
                let id = naming.scenarioReadingID(wire)
                shared.withLock { s in
                    if s.mqttRejections[id] == nil { s.mqttRejections[id] = (status, field) }
                    if RunHealth.configurationStatuses.contains(status) {
                        s.health.noteRefusal("MQTT refusal on \(message.topic)", status: status, body: message.payload)
                    }
                    if RunHealth.outageStatuses.contains(status) {
                        s.health.noteMQTTThrottled("\(message.topic)", status: status, body: message.payload)
                    }
                }
                continue
            }
            guard let confirmations, confirmations.matches(message.topic) else { continue }
            let ids = confirmations.read(message.payload).map(naming.scenarioReadingID)
            shared.withLock { s in s.mqttConfirmed.formUnion(ids) }
        }
    }

    /// Applies the SUT's refusals to the MQTT messages they name. An MQTT message is acknowledged by
    /// the broker's PUBACK; the SUT's verdict on it arrives on its refusals topic (errors/{patientId}),
    /// read as an HTTP refusal is.
    func applyMQTTRejections(_ shared: inout Shared, sent: [SentRequest]) {
        for (i, request) in sent.enumerated() where request.topic != nil && shared.outcomes[i].status != nil {
            if let id = request.firstReading, let refusal = shared.mqttRejections[id] {
                // A refusal for want of credentials is a configuration refusal, as over HTTP (``RunHealth``).
                if RunHealth.configurationStatuses.contains(refusal.status) {
                    shared.health.accepted -= 1
                    shared.health.refused += 1
                }
                shared.outcomes[i].status = rejectionStatuses.contains(refusal.status) ? 400 : refusal.status
                shared.outcomes[i].field = request.expectedRejection?.canonical(refusal.field) ?? refusal.field
            }
        }
    }

    /// What became of the acknowledged MQTT messages (each carries one reading). Without the SUT's
    /// refusals (`refusals: false`), a corrupted reading it did not confirm is taken as refused.
    static func mqttDelivery(_ shared: Shared, sent: [SentRequest], refusals: Bool = true) -> MQTTDelivery {
        var delivery = MQTTDelivery()
        delivery.sutConfirms = !shared.mqttConfirmed.isEmpty
        delivery.brokerDropped = shared.brokerDropped
        for (i, request) in sent.enumerated()
        where request.topic != nil && i < shared.outcomes.count && shared.outcomes[i].status != nil {
            delivery.acknowledged += 1
            guard let id = request.firstReading else { continue }
            if shared.mqttRejections[id] != nil {
                delivery.rejected += 1
            } else if shared.mqttConfirmed.contains(id) {
                delivery.confirmed += 1
            } else if !refusals, request.expectedRejection != nil {
                continue
            } else {
                delivery.unconfirmedCount += 1
                if delivery.unconfirmed.count < MQTTDelivery.namedLimit { delivery.unconfirmed.append(id) }
            }
        }
        return delivery
    }

    /// Records in the SUT contract what the run's MQTT messages met (PUBACK, the SUT's refusal, no
    /// PUBACK) and how many requests were not sent after the run stopped.
    static func log(_ sent: [SentRequest], _ outcomes: [RequestOutcome], naming: WireNaming, to contract: ContractLog) {
        var notSent = 0
        for (i, request) in sent.enumerated() where i < outcomes.count {
            let outcome = outcomes[i]
            if outcome.status == nil, outcome.attempts == 0 {
                notSent += 1
            } else if let topic = request.topic {
                let patient = naming.patient(request.patientID)
                contract.published(
                    topic: topic,
                    status: outcome.status,
                    patient: patient,
                    device: naming.device(request.deviceID, of: request.patientID)
                )
            }
        }
        contract.notSent(notSent)
    }
}
