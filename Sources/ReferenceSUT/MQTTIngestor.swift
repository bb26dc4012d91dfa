import GATT
import VitalSimCore
import Wire

/// MQTT ingestion: subscribes to `vitals/+/+` (`vitals/{patientId}/{kind}`, QoS 1) and ingests each
/// message — a JSON observation (as for `POST /api/v1/observations`), or raw GATT bytes when the
/// MQTT 5 user property `characteristic` names the characteristic (`2A37`, `heart_rate_measurement`,
/// …), decoded with VitalSim's GATT decoders. Raw messages may carry `reading-id`, `device-id` and
/// `device-time` (ISO-8601) user properties. A rejected message is answered on
/// `errors/{patientId}` with `{readingId, status, error, field}`.
public final class MQTTIngestor: Sendable {
    let client: MQTTClient
    let context: ServerContext
    /// Messages judged concurrently (so storage commits group).
    let concurrency = 256

    public init(client: MQTTClient, context: ServerContext) { self.client = client; self.context = context }

    /// Subscribes and ingests until the client's message stream ends.
    public func run() async throws(MQTTError) {
        try client.subscribe("vitals/+/+", qos: 1)
        await withTaskGroup(of: Void.self) { group in
            var inflight = 0
            for await message in client.messages {
                if inflight >= concurrency { await group.next(); inflight -= 1 }
                group.addTask { await self.handle(message) }
                inflight += 1
            }
        }
    }

    func handle(_ m: MQTTMessage) async {
        let metrics = context.metrics
        let parts = m.topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "vitals", !parts[1].isEmpty, !parts[2].isEmpty else {
            metrics.count("vitalsim_mqtt_messages_total", ["outcome": "bad-topic"])
            return
        }
        let patient = parts[1], kind = parts[2]
        let readingID = m.property("reading-id")
        let observation: Observation
        do throws(ValidationFailure) {
            observation = try parse(m, patient: patient, kind: kind)
        } catch {
            metrics.count("vitalsim_mqtt_messages_total", ["outcome": "rejected"])
            await reply(patient, readingID: readingID, failure: error)
            return
        }
        do throws(StorageError) {
            let fresh = try await context.store.ingest(observation, source: "mqtt")
            metrics.count("vitalsim_mqtt_messages_total", ["outcome": fresh ? "accepted" : "duplicate"])
        } catch {
            metrics.count("vitalsim_mqtt_messages_total", ["outcome": "storage-failed"])
            await reply(patient, readingID: observation.readingID, failure: ValidationFailure(field: "", message: "the reading could not be stored", status: 503))
        }
    }

    func parse(_ m: MQTTMessage, patient: String, kind: String) throws(ValidationFailure) -> Observation {
        let now = context.clock()
        if let name = m.property("characteristic") {
            let type: any GATTCharacteristic.Type
            do throws(GATTError) { type = try CharacteristicRegistry.lookup(name) } catch {
                throw ValidationFailure(field: "characteristic", message: "unknown GATT characteristic '\(name)'")
            }
            var received = now
            if let t = m.property("device-time") {
                guard let ms = CivilTime.unixMilliseconds(rfc3339: t) else { throw ValidationFailure(field: "device-time", message: "device-time must be ISO-8601") }
                received = ms
            }
            guard received <= now + PayloadValidation.futureSkew else { throw ValidationFailure(field: "device-time", message: "device-time is more than 5 minutes in the future") }
            let id = m.property("reading-id") ?? "\(patient)/mqtt/\(kind)/\(received)"
            let device = m.property("device-id") ?? "mqtt-\(patient)-\(kind)"
            let decoded: Observation?
            do throws(GATTError) {
                decoded = try GATTObservations.observation(uuid: type.uuid, bytes: m.payload, patientID: patient, deviceID: device, readingID: id, receivedAt: received)
            } catch {
                throw ValidationFailure(field: "payload", message: "\(error)")
            }
            guard let decoded else { throw ValidationFailure(field: "payload", message: "the \(type.name) value carries no vital sign VitalSim judges") }
            return decoded
        }
        guard let body = JSONInput.parse(m.payload) else { throw ValidationFailure(field: "", message: "the payload is neither JSON nor raw GATT (set the user property 'characteristic')") }
        guard body.depth <= ReferenceServer.maxDepth else { throw ValidationFailure(field: "", message: "JSON nested deeper than \(ReferenceServer.maxDepth)") }
        let o = try PayloadValidation.observation(body, now: now)
        guard o.patientID == patient else {
            throw ValidationFailure(field: "patientId", message: "patientId \(o.patientID) does not match the topic's patient \(patient)", status: 403)
        }
        return o
    }

    func reply(_ patient: String, readingID: String?, failure: ValidationFailure) async {
        var fields: [(String, JSONValue)] = []
        if let readingID { fields.append(("readingId", .string(readingID))) }
        fields += [("status", .int(Int64(failure.status))), ("error", .string(failure.message)), ("field", .string(failure.field))]
        try? await client.publish(MQTTMessage(topic: "errors/\(patient)", payload: Array(JSONValue.object(fields).serialized().utf8), qos: 1))
    }
}
