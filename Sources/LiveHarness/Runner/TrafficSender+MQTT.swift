import Clocks
import Foundation
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

extension TrafficSender {
    /// The topic of the broker's drop counter (mosquitto `$SYS`).
    static let droppedTopic = "$SYS/broker/publish/messages/dropped"

    /// The MQTT message of a planned request (topic, body, the run's QoS, user properties).
    func message(for plannedRequest: PlannedRequest) -> MQTTMessage {
        var properties = plannedRequest.userProperties.map { UserProperty($0.name, $0.value) }
        if let trace {
            let value = trace.traceparent(firstReading: RequestTrace.key(plannedRequest), attempt: 1)
            properties.append(UserProperty(RequestTrace.header, value))
        }
        if deviceCredentials == .userProperties {
            let wire = (
                patient: naming.patient(plannedRequest.patientID),
                device: naming.device(plannedRequest.deviceID, of: plannedRequest.patientID)
            )
            let carried = auth.deviceProperties(
                patient: plannedRequest.patientID,
                device: plannedRequest.deviceID,
                wire: wire
            )
            for property in carried ?? [] { properties.append(UserProperty(property.name, property.value)) }
        }
        return MQTTMessage(
            topic: plannedRequest.topic ?? "",
            payload: plannedRequest.body,
            qos: qos,
            userProperties: properties
        )
    }

    /// Publishes request `index` without awaiting its acknowledgement: the outcome is recorded when
    /// the broker acknowledges (a failed or timed-out publish is retried as ``publish(_:via:)`` does)
    /// and the window place is freed then. False when the message could not even be queued.
    func publishPipelined(
        _ plannedRequest: PlannedRequest,
        index: Int,
        intended: Duration,
        via mqtt: any MQTTSession,
        span: Int64,
        _ shared: SharedRunState,
        _ window: SendWindow
    ) -> Bool {
        let message = message(for: plannedRequest)
        let route = RunHealth.mqttRoute
        do throws(MQTTError) {
            try mqtt.publish(message) { reason in
                if reason >= 0, reason < 0x80 {
                    let outcome = RequestOutcome(status: 200, attempts: 1)
                    finish(index, plannedRequest, outcome, intended: intended, span: span, route: route, shared)
                    window.release()
                    return
                }
                Task {
                    var outcome = await publish(plannedRequest, via: mqtt)
                    outcome.attempts += 1
                    finish(index, plannedRequest, outcome, intended: intended, span: span, route: route, shared)
                    window.release()
                }
            }
            return true
        } catch {
            return false
        }
    }

    /// Publishes one MQTT message (QoS ≥ 1 waits for the broker's acknowledgement) with retries
    /// backing off 250 ms doubling to 4 s for up to the outage limit from the first failure (the
    /// broker answered the connection before the run, so a failure is an outage: libmosquitto
    /// reconnects meanwhile); a PUBACK counts as acknowledged (recorded as status 200) unless the
    /// SUT reports a rejection on `errors/{patientId}`.
    func publish(_ plannedRequest: PlannedRequest, via mqtt: any MQTTSession) async -> RequestOutcome {
        let message = message(for: plannedRequest)
        var outcome = RequestOutcome()
        var backoff = RetryPolicy.Backoff()
        var firstFailure: AnyClock<Duration>.Instant?
        while true {
            outcome.attempts += 1
            do throws(MQTTError) {
                try await mqtt.publish(message)
                outcome.status = 200
                outcome.error = nil
                if let firstFailure { outcome.waited = (clock.now - firstFailure).seconds }
                return outcome
            } catch {
                outcome.error = error.description
            }
            let now = clock.now
            let since = firstFailure ?? now
            firstFailure = since
            outcome.waited = (now - since).seconds
            // The broker answered the connection before the run: a failure is an outage.
            if retries.givesUp(attempts: outcome.attempts, sinceFirstFailure: now - since, reachable: true) {
                return outcome
            }
            try? await clock.sleep(for: backoff.next())
        }
    }

    /// Collects the SUT's verdicts on MQTT messages: rejections (by default `{readingId, status,
    /// error, field}` on `errors/{patientId}`; the profile's `mqtt.rejections`), confirmations (by
    /// default `{readingId}` or `{readingIds: […]}` on `acks/{patientId}`; `mqtt.confirmations`), and
    /// the broker's drop counter when subscribed to it.
    func collectVerdicts(
        _ reader: any MQTTSession,
        rejections: SUTProfile.MQTTRejections?,
        confirmations: SUTProfile.MQTTConfirmations?,
        _ shared: SharedRunState
    ) async {
        for await message in reader.messages {
            if message.topic == Self.droppedTopic {
                let text = String(decoding: message.payload, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if let dropped = Int(text) { shared.withLock { $0.brokerDropped(dropped) } }
                continue
            }
            if let rejections, rejections.matches(message.topic) {
                guard let (wire, status, field) = rejections.read(message.payload) else { continue }
                let id = naming.scenarioReadingID(wire)
                shared.withLock {
                    $0.mqttRefused(id, status: status, field: field, topic: message.topic, body: message.payload)
                }
                continue
            }
            guard let confirmations, confirmations.matches(message.topic) else { continue }
            let ids = confirmations.read(message.payload).map(naming.scenarioReadingID)
            shared.withLock { $0.mqttConfirmed(ids) }
        }
    }

    /// Records in the SUT contract what the run's MQTT messages met (PUBACK, the SUT's refusal, no
    /// PUBACK) and how many requests were not sent after the run stopped.
    func logPublished(_ sent: [SentRequest], _ outcomes: [RequestOutcome]) {
        var notSent = 0
        for (i, request) in sent.enumerated() where i < outcomes.count {
            let outcome = outcomes[i]
            if outcome.status == nil, outcome.attempts == 0 {
                notSent += 1
            } else if let topic = request.topic {
                auth.contract.published(
                    topic: topic,
                    status: outcome.status,
                    patient: naming.patient(request.patientID),
                    device: naming.device(request.deviceID, of: request.patientID)
                )
            }
        }
        auth.contract.notSent(notSent)
    }
}
