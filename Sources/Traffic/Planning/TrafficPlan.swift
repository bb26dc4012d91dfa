import Crypto
import Foundation
import VitalSimCore

/// One delivery of a live run: an HTTP request carrying one reading (VitalEdge endpoints, corrupt
/// or duplicate deliveries) or a batch of one device's readings for `POST /api/v1/observations`; or
/// one MQTT message (`topic` set) carrying one reading.
package struct PlannedRequest: Sendable {
    /// The HTTP path (ignored for MQTT messages).
    package var path: String
    package var body: [UInt8]
    /// The reading ids it carries, and each one's intended emit time (virtual ms from the start).
    package var readings: [(id: String, emit: Int64)]
    package var patientID: String
    /// When the request is due (the intended emit time of its last reading).
    package var sendAt: Int64
    /// The rejection a conforming SUT must answer with (a corrupt delivery), if any.
    package var expectedRejection: ExpectedRejection?
    /// The MQTT topic (`vitals/{patientId}/{kind}`) when the device sends over MQTT.
    package var topic: String? = nil
    /// MQTT 5 user properties (reading id, device, device time, intended emit time, characteristic).
    package var userProperties: [(name: String, value: String)] = []
    /// The device whose readings it carries (for per-device credentials; not part of the traffic digest).
    package var deviceID = ""
    /// The HTTP method and content type (a SUT profile's route; the reference contract's POST of JSON).
    package var method = "POST"
    package var contentType = "application/json"
    /// Header lines beside the content type and the credentials (a FHIR conditional create's
    /// `If-None-Exist`); part of the wire form, not of the digest, like the method.
    package var headers: [String] = []
    /// Why no request could be made of its reading under the SUT profile (no route carries its kind,
    /// or the route's format has no form for it): the run stops as misconfigured rather than send it.
    package var unroutable: String?
    /// The device time of each of its readings (virtual ms, in ``readings`` order; not part of the
    /// digest), kept only when the stream is asked to (`TrafficPlanStream(deviceTimes: true)`): an
    /// alert that cites no evidence is timed from the request carrying a reading of its patient
    /// stamped its time.
    package var deviceTimes: [Int64] = []
    /// The kinds of its readings (not part of the digest): what the requirements a check of it
    /// verifies are about (`ingest.KIND.accept`, docs/requirements.md).
    package var kinds = VitalKindSet()

    /// A delivery with every field given (MQTT messages name their `topic`).
    package init(
        path: String,
        body: [UInt8],
        readings: [(id: String, emit: Int64)],
        patientID: String,
        sendAt: Int64,
        expectedRejection: ExpectedRejection?,
        topic: String? = nil,
        userProperties: [(name: String, value: String)] = [],
        deviceID: String = "",
        kind: VitalKind? = nil
    ) {
        self.deviceID = deviceID
        if let kind { kinds.insert(kind) }
        self.path = path
        self.body = body
        self.readings = readings
        self.patientID = patientID
        self.sendAt = sendAt
        self.expectedRejection = expectedRejection
        self.topic = topic
        self.userProperties = userProperties
    }

    /// `https` or `mqtt`.
    package var transport: String { topic == nil ? "https" : "mqtt" }

    /// The request's URL: its path on `base`, or the path itself when a route gives an absolute URL
    /// (an endpoint on another host, as the source documents' IoT endpoint).
    package func url(base: String) -> String {
        path.hasPrefix("https://") || path.hasPrefix("http://") ? path : base + path
    }
}

/// Turns a scenario's readings into HTTP requests, deterministically (same scenario and seed,
/// same bytes in the same order). BLE devices are relayed the way a phone gateway does: decoded,
/// as generic observations; a corrupt delivery becomes the JSON counterpart of its fault
/// (truncation → a truncated body, bad flags → a wrong unit, bad CRC → an impossible value).
/// Devices with `transport: mqtt` publish each reading on `vitals/{patientId}/{kind}`: a BLE device's
/// raw GATT value (as a gateway forwards it, with the `characteristic` user property; a corrupt
/// delivery carries the corrupted bytes, which a SUT must refuse naming `payload`), or the
/// observation JSON for other devices.
package enum TrafficPlan {
    /// Readings of one device within this much virtual time share a batch.
    package static let batchWindow: Int64 = 60_000
    package static let maxBatch = 100

    /// - Parameter bleLink: leave out the devices that a live run carries over a real BLE link
    ///   (`vitalsim run --ble hci`: Bluetooth devices with `transport: ble`).
    package static func requests(for scenario: Scenario, seed: UInt64? = nil, bleLink: Bool = false) -> [PlannedRequest]
    {
        Array(TrafficPlanStream(for: scenario, seed: seed, bleLink: bleLink))
    }

    /// A reading as one MQTT message (nil for intermediate cuff pressures and daily summaries).
    static func message(
        _ reading: Reading,
        encoder: ReadingEncoder,
        start: Int64,
        topic: MQTTTopicTemplate = .vitalsim
    ) -> PlannedRequest? {
        guard let json = ObservationJSON.encode(reading, start: start) else { return nil }
        var props = properties(reading, start: start)
        var body = Array(json.serialized().utf8)
        var rejection: ExpectedRejection?
        if reading.deviceType.isBluetooth, let gatt = encoder.encode(reading).first, let uuid = gatt.characteristic {
            props.append(("characteristic", String(format: "%04X", uuid)))
            body = gatt.bytes
            if reading.delivery.corruption != nil { rejection = ExpectedRejection(status: 400, field: "payload") }
        } else if let corruption = reading.delivery.corruption {
            (body, rejection) = ObservationJSON.corrupt(json, corruption)
        }
        return PlannedRequest(
            path: "",
            body: body,
            readings: [(reading.id, reading.intendedEmitTime)],
            patientID: reading.patientID,
            sendAt: reading.intendedEmitTime,
            expectedRejection: rejection,
            topic: topic.topic(patient: reading.patientID, device: reading.deviceID, kind: reading.kind.rawValue),
            userProperties: props,
            deviceID: reading.deviceID,
            kind: reading.kind
        )
    }

    /// The MQTT 5 user properties of a message carrying `r`: `reading-id`, `device-id`,
    /// `device-time` and `emit-time` (ISO-8601).
    static func properties(_ reading: Reading, start: Int64) -> [(name: String, value: String)] {
        [
            ("reading-id", reading.id), ("device-id", reading.deviceID),
            ("device-time", CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true)),
            ("emit-time", CivilTime(unixMilliseconds: start + reading.intendedEmitTime).iso8601(fractional: true)),
        ]
    }

    /// The digest of the scenario's whole traffic in the reference contract's form, generated and
    /// dropped request by request.
    package static func streamedDigest(for scenario: Scenario, seed: UInt64? = nil) -> String {
        let stream = TrafficPlanStream(for: scenario, seed: seed)
        while stream.next() != nil {}
        return stream.digest ?? ""
    }

    /// sha256 of the whole request stream (path and body of each request, in order).
    package static func digest(_ requests: [PlannedRequest]) -> String {
        var shA256 = SHA256()
        for r in requests { hash(r, into: &shA256) }
        return finish(shA256)
    }

    /// Adds one request to a running digest.
    static func hash(_ plannedRequest: PlannedRequest, into shA256: inout SHA256) {
        if let topic = plannedRequest.topic {
            shA256.update(data: Array(("mqtt:" + topic).utf8) + [0])
            for p in plannedRequest.userProperties { shA256.update(data: Array("\(p.name)=\(p.value)".utf8) + [0]) }
        } else if plannedRequest.method == "POST" {
            shA256.update(data: Array(plannedRequest.path.utf8) + [0])
        } else {
            shA256.update(data: Array((plannedRequest.method + " " + plannedRequest.path).utf8) + [0])
        }
        shA256.update(data: plannedRequest.body + [0x0A])
    }

    static func finish(_ shA256: SHA256) -> String {
        "sha256:" + shA256.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
