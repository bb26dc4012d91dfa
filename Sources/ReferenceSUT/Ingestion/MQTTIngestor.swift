import Bluetooth
import Locking
import ReferenceEngine
import Transports
import VitalSimCore
import W3CTraceContext

/// MQTT ingestion: subscribes to `vitals/+/+` (`vitals/{patientId}/{kind}`, QoS 1; other topic
/// templates with `serve --mqtt-topic`, their `{patient}` and `{kind}` levels read back) and ingests each
/// message — a JSON observation (as for `POST /api/v1/observations`), a FHIR R4 Observation (as for
/// `POST /fhir/Observation`), or raw GATT bytes when the
/// MQTT 5 user property `characteristic` names the characteristic (`2A37`, `heart_rate_measurement`,
/// …), decoded with VitalSim's GATT decoders. Raw messages may carry `reading-id`, `device-id` and
/// `device-time` (ISO-8601) user properties. When credentials are configured (`serve --credentials`
/// or `--dev`) every message carries its device's credential as the MQTT 5 user property
/// `authorization` (`Bearer TOKEN`) or `x-api-key`, as an HTTP request carries it in a header: 401
/// without a known device credential, 403 on another patient's topic. A rejected message is answered on
/// `errors/{patientId}` with `{readingId, status, error, field}`; stored ones are confirmed on
/// `acks/{patientId}` with `{readingIds: […], status: 201}`.
package final class MQTTIngestor: Sendable {
    let client: MQTTClient
    let context: ServerContext
    /// Patients are spread over this many lanes judged concurrently; one patient's messages stay in order.
    let lanes = 32
    /// The topics readings arrive on (a message's topic is read by the first that matches it).
    let topics: [MQTTTopicTemplate]

    package init(client: MQTTClient, context: ServerContext, topics: [MQTTTopicTemplate] = [.vitalsim]) {
        self.client = client
        self.context = context
        self.topics = topics
    }

    /// The placeholders' values in `topic`, by the first template it matches.
    func match(_ topic: String) -> [String: String]? {
        for t in topics { if let values = t.match(topic) { return values } }
        return nil
    }

    /// Subscribes and waits for the broker's SUBACK, so nothing published after the server
    /// announces itself is missed.
    package func subscribe() async throws(MQTTError) {
        for filter in Set(topics.map(\.filter)).sorted() { try await client.subscribeAcknowledged(filter, qos: 1) }
    }

    /// Ingests until the client's message stream ends (after ``subscribe()``). Messages are judged
    /// in arrival order per patient (MQTT keeps a topic's order; alert rules depend on it), with
    /// patients spread over `lanes` concurrent lanes; a lane stores what has queued up since its
    /// last commit in one batch, so ingestion keeps up with a fast publisher.
    package func run() async {
        let queues = (0..<lanes).map { _ in MessageQueue() }
        await withTaskGroup(of: Void.self) { group in
            for queue in queues {
                group.addTask {
                    for await _ in queue.ready { await self.handle(queue.drain()) }
                    await self.handle(queue.drain())
                }
            }
            for await message in client.messages {
                let patient = match(message.topic)?["patient"] ?? ""
                queues[Int(SeededRandom.fnv1a(patient) % UInt64(lanes))].push(message)
            }
            for queue in queues { queue.finish() }
        }
    }

    /// Judges a batch of messages in order: rejections are answered one by one, the rest stored together.
    func handle(_ messages: [MQTTMessage]) async {
        guard !messages.isEmpty else { return }
        let metrics = context.metrics
        var accepted: [Observation] = []
        var traces: [String: TraceContext] = [:]
        for m in messages {
            guard let values = match(m.topic), let patient = values["patient"], let kind = values["kind"] else {
                metrics.count("vitalsim_mqtt_messages_total", ["outcome": "bad-topic"])
                continue
            }
            do throws(ValidationFailure) {
                let observation = try parse(m, patient: patient, kind: kind)
                try limitRate(observation)
                accepted.append(observation)
                if let span = ReferenceTrace.child(of: m.property("traceparent")) {
                    traces[observation.readingID] = span
                }
            } catch {
                metrics.count("vitalsim_mqtt_messages_total", ["outcome": "rejected"])
                // Faulty mode accept-invalid: the rejection is never reported.
                if !context.faults.acceptInvalid {
                    let failure =
                        context.faults.bareRefusals
                        ? ValidationFailure(field: "", message: "Invalid data", status: error.status) : error
                    await reply(patient, readingID: m.property("reading-id"), failure: failure)
                }
            }
        }
        guard !accepted.isEmpty else { return }
        do throws(StorageError) {
            let outcomes = try await context.store.ingest(accepted, source: "mqtt", traces: traces)
            for fresh in outcomes {
                metrics.count("vitalsim_mqtt_messages_total", ["outcome": fresh ? "accepted" : "duplicate"])
            }
            confirm(accepted)
        } catch {
            for o in accepted {
                metrics.count("vitalsim_mqtt_messages_total", ["outcome": "storage-failed"])
                await reply(
                    o.patientID,
                    readingID: o.readingID,
                    failure: ValidationFailure(field: "", message: "the reading could not be stored", status: 503)
                )
            }
        }
    }

    /// Applies `serve --rate-limit` to MQTT as to HTTP (readings per second per device): over it, a
    /// message is refused with 429 on `errors/{patientId}` and not stored.
    func limitRate(_ observation: Observation) throws(ValidationFailure) {
        guard let wait = context.limiter.take("\(observation.patientID)/\(observation.deviceID)") else { return }
        context.metrics.count("vitalsim_readings_total", ["source": "mqtt", "outcome": "rate-limited"])
        throw ValidationFailure(
            field: "",
            message:
                "rate limit of \(Int(context.limiter.rate)) readings/s per device exceeded; retry after \((wait * 1000).rounded() / 1000) s",
            status: 429
        )
    }

    /// Refuses a payload over its size limit (413) and ids that are not printable text, before parsing.
    func checkLimits(_ mqttMessage: MQTTMessage, patient: String) throws(ValidationFailure) {
        let gatt = mqttMessage.property("characteristic") != nil
        let limit = gatt ? ByteReader.maxAttributeValue : ReferenceServer.maxBody
        guard mqttMessage.payload.count <= limit else {
            throw ValidationFailure(
                field: "payload",
                message:
                    "the payload is \(mqttMessage.payload.count) bytes; a \(gatt ? "raw GATT value" : "JSON message") holds at most \(limit)",
                status: 413
            )
        }
        _ = try PayloadValidation.identifier(patient, field: "topic")
        for property in ["reading-id", "device-id"] {
            if let id = mqttMessage.property(property) { _ = try PayloadValidation.identifier(id, field: property) }
        }
    }

    /// The device whose credential `m` carries, when credentials are configured (nil when they are
    /// not): 401 without a known device credential, 403 when the device belongs to another patient
    /// than the topic's.
    func authenticate(
        _ mqttMessage: MQTTMessage,
        patient: String
    ) throws(ValidationFailure) -> (patientID: String, deviceID: String)? {
        guard context.credentials.enforced else { return nil }
        guard
            let token = Credentials.token(
                mqttMessage.property("authorization"),
                apiKey: mqttMessage.property("x-api-key")
            ),
            let owner = context.credentials.devices[token]
        else {
            throw ValidationFailure(
                field: "authorization",
                message:
                    "a known device credential is required: the MQTT 5 user property 'authorization' (Bearer TOKEN) or 'x-api-key' with a device token",
                status: 401
            )
        }
        guard owner.patientID == patient else {
            throw ValidationFailure(
                field: "topic",
                message: "device \(owner.deviceID) may publish only for patient \(owner.patientID), not \(patient)",
                status: 403
            )
        }
        return owner
    }

    func parse(_ mqttMessage: MQTTMessage, patient: String, kind: String) throws(ValidationFailure) -> Observation {
        let now = context.clock()
        let owner = try authenticate(mqttMessage, patient: patient)
        try checkLimits(mqttMessage, patient: patient)
        if let name = mqttMessage.property("characteristic") {
            return try rawObservation(
                mqttMessage,
                characteristic: name,
                patient: patient,
                kind: kind,
                device: owner?.deviceID,
                now: now
            )
        }
        let body: JSONInput
        do throws(ValidationFailure) {
            body = try JSONInput.parse(mqttMessage.payload, maxDepth: ReferenceServer.maxDepth)
        } catch {
            throw ValidationFailure(
                field: error.field,
                message: "\(error.message) (a raw GATT value needs the user property 'characteristic')"
            )
        }
        let observation: Observation
        if case let .object(fields) = body, case .string("Observation")? = fields["resourceType"] {
            observation = try FHIRObservation.parse(body, now: now)
        } else {
            observation = try PayloadValidation.observation(body, now: now)
        }
        guard observation.patientID == patient else {
            throw ValidationFailure(
                field: "patientId",
                message: "patientId \(observation.patientID) does not match the topic's patient \(patient)",
                status: 403
            )
        }
        return observation
    }

    /// The observation of a raw GATT value (`characteristic` names it): the device is the
    /// `device-id` property, else `device` (the credential's), else one named after the topic.
    func rawObservation(
        _ mqttMessage: MQTTMessage,
        characteristic name: String,
        patient: String,
        kind: String,
        device credentialDevice: String?,
        now: Int64
    ) throws(ValidationFailure) -> Observation {
        let type: any GATTCharacteristic.Type
        do throws(GATTError) { type = try CharacteristicRegistry.lookup(name) } catch {
            throw ValidationFailure(field: "characteristic", message: "unknown GATT characteristic '\(name)'")
        }
        var received = now
        if let stamp = mqttMessage.property("device-time") {
            guard let ms = CivilTime.unixMilliseconds(rfc3339: stamp), ms >= 0 else {
                throw ValidationFailure(field: "device-time", message: "device-time must be ISO-8601, 1970 or later")
            }
            received = ms
        }
        guard received <= now + PayloadValidation.futureSkew else {
            throw ValidationFailure(field: "device-time", message: "device-time is more than 5 minutes in the future")
        }
        let id = mqttMessage.property("reading-id") ?? "\(patient)/mqtt/\(kind)/\(received)"
        let device = mqttMessage.property("device-id") ?? credentialDevice ?? "mqtt-\(patient)-\(kind)"
        let decoded: Observation?
        do throws(GATTError) {
            decoded = try GATTObservations.observation(
                uuid: type.uuid,
                bytes: mqttMessage.payload,
                patientID: patient,
                deviceID: device,
                readingID: id,
                receivedAt: received
            )
        } catch {
            throw ValidationFailure(field: "payload", message: "\(error)")
        }
        guard let decoded else {
            throw ValidationFailure(
                field: "payload",
                message: "the \(type.name) value carries no vital sign VitalSim judges"
            )
        }
        return decoded
    }

    /// Confirms stored readings (new or already held) on `acks/{patientId}`, one message per patient of
    /// the batch: `{"readingIds": […], "status": 201}`. Published without waiting, so that the lane
    /// goes on; a confirmation that cannot be queued is counted and the harness sees it missing.
    func confirm(_ stored: [Observation]) {
        var order: [String] = []
        var ids: [String: [JSONValue]] = [:]
        for o in stored {
            if ids[o.patientID] == nil { order.append(o.patientID) }
            ids[o.patientID, default: []].append(.string(o.readingID))
        }
        for patient in order {
            let body = JSONValue.object([("readingIds", .array(ids[patient] ?? [])), ("status", .int(201))])
            do throws(MQTTError) {
                try client.publish(
                    MQTTMessage(topic: "acks/\(patient)", payload: Array(body.serialized().utf8), qos: 1)
                ) { _ in }
            } catch {
                context.metrics.count("vitalsim_mqtt_confirmations_total", ["outcome": "not-published"])
            }
        }
    }

    func reply(_ patient: String, readingID: String?, failure: ValidationFailure) async {
        var fields: [(String, JSONValue)] = []
        if let readingID { fields.append(("readingId", .string(readingID))) }
        fields += [
            ("status", .int(Int64(failure.status))), ("error", .string(failure.message)),
            ("field", .string(failure.field)),
        ]
        try? await client.publish(
            MQTTMessage(topic: "errors/\(patient)", payload: Array(JSONValue.object(fields).serialized().utf8), qos: 1)
        )
    }
}

/// Messages waiting for one ingestion lane; `ready` signals (coalesced) that some have arrived.
final class MessageQueue: Sendable {
    let pending = Locked<[MQTTMessage]>([])
    let ready: AsyncStream<Void>
    let signal: AsyncStream<Void>.Continuation

    init() { (ready, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1)) }

    func push(_ mqttMessage: MQTTMessage) {
        pending.withLock { $0.append(mqttMessage) }
        signal.yield()
    }

    /// Everything queued, oldest first.
    func drain() -> [MQTTMessage] {
        pending.withLock { q in
            defer { q.removeAll() }
            return q
        }
    }

    func finish() { signal.finish() }
}
