import Crypto
import VitalSimCore

/// A scenario's traffic plan produced as the generator runs, in due order, so that a live run holds
/// only about one batch window of requests ahead of what it sends rather than the whole run (memory
/// follows devices, not readings). The requests, their order and the digest are exactly those of
/// ``TrafficPlan/requests(for:seed:bleLink:)``, which collects this stream.
///
/// Readings arrive from ``ScenarioRun`` in intended-emit-time order. A device's open batch takes
/// readings for ``TrafficPlan/batchWindow`` after its first, so once the generator is past that it is
/// closed; and since every open batch is due at or after its first reading, a closed request due
/// more than one window before the generator's time can be released: nothing still to come can be
/// due before it.
package final class TrafficPlanStream: Sequence, IteratorProtocol {
    var run: ScenarioRun
    let encoder: ReadingEncoder
    let start: Int64
    let viaMQTT: Set<String>
    let viaBLE: Set<String>
    /// Every request ever created gets the next offset; due order is (sendAt, offset).
    var created = 0
    /// How readings reach the SUT (a SUT profile's routes; empty for the reference contract).
    let routes: IngestionRoutes
    /// The ids readings carry at the SUT (requests keep the scenario's ids for judging).
    let naming: WireNaming
    /// The topic of MQTT devices' readings (a SUT profile's `mqtt.topic`).
    let mqttTopic: MQTTTopicTemplate
    /// Whether requests keep their readings' device times (``PlannedRequest/deviceTimes``).
    let keepsDeviceTimes: Bool
    /// Open batches by device key: the request so far (body kept serialized, without its closing
    /// bytes), the bytes that close it, and how many readings it takes at most.
    var open: [String: (request: PlannedRequest, offset: Int, first: Int64, suffix: [UInt8], limit: Int)] = [:]
    /// Open batches in creation order (first-reading order), for closing them once their window has passed.
    var opened: [(key: String, offset: Int, first: Int64)] = []
    var openedHead = 0
    /// Closed requests waiting for their turn: a min-heap on (sendAt, offset).
    var ready: [(request: PlannedRequest, offset: Int)] = []
    /// The generator's time: the intended emit time of the latest reading taken.
    var now = Int64.min
    var exhausted = false
    var hasher = SHA256()
    var finalDigest: String?
    /// Requests produced so far.
    package private(set) var produced = 0
    /// The most requests held at once (open batches and closed ones waiting for their turn).
    package private(set) var peakHeld = 0
    /// Readings not sent because their kind is withheld (``IngestionRoutes/withheld``): how many,
    /// and the kind of each corrupted one by its (scenario) id, for the judge's refusal checks.
    package private(set) var withheldCount = 0
    package private(set) var withheldCorrupt: [String: VitalKind] = [:]

    /// - Parameters:
    ///   - bleLink: leave out the devices that a live run carries over a real BLE link.
    ///   - routes: how HTTP readings reach the SUT (a SUT profile's ingestion routes).
    ///   - naming: the patient and device ids written into the traffic (a SUT profile's `lifecycle`).
    ///   - mqttTopic: the topic of MQTT devices' readings (a SUT profile's `mqtt.topic`).
    ///   - deviceTimes: keep each request's readings' device times (a run judging alerts without evidence).
    package init(
        for scenario: Scenario,
        seed: UInt64? = nil,
        bleLink: Bool = false,
        routes: IngestionRoutes = .vitalsim,
        naming: WireNaming = .identity,
        mqttTopic: MQTTTopicTemplate = .vitalsim,
        deviceTimes: Bool = false
    ) {
        keepsDeviceTimes = deviceTimes
        self.routes = routes
        self.naming = naming
        self.mqttTopic = mqttTopic
        run = ScenarioRun(scenario: scenario, seed: seed)
        start = scenario.startUnixMilliseconds
        encoder = ReadingEncoder(startUnixMilliseconds: start)
        var mqtt: Set<String> = []
        for p in scenario.patients { for d in p.devices where d.transport == .mqtt { mqtt.insert("\(p.id)/\(d.id)") } }
        viaMQTT = mqtt
        viaBLE = bleLink ? Set(scenario.bleDevices.map { "\($0.0)/\($0.1.id)" }) : []
    }

    /// sha256 of the whole request stream (``TrafficPlan/digest(_:)``), once the stream has ended; nil before.
    package var digest: String? { finalDigest }

    package func next() -> PlannedRequest? {
        while true {
            if let top = ready.first, exhausted || top.request.sendAt < now - TrafficPlan.batchWindow {
                let request = popReady()
                TrafficPlan.hash(request, into: &hasher)
                produced += 1
                return request
            }
            if exhausted {
                if finalDigest == nil { finalDigest = TrafficPlan.finish(hasher) }
                return nil
            }
            take()
        }
    }

    /// Takes the generator's next reading (or, at its end, closes every batch).
    func take() {
        peakHeld = Swift.max(peakHeld, ready.count + open.count)
        guard let (generated, _) = run.next() else {
            for key in open.keys.sorted() { close(key) }
            exhausted = true
            return
        }
        now = Swift.max(now, generated.intendedEmitTime)
        closeBatchesPastTheirWindow()
        let key = "\(generated.patientID)/\(generated.deviceID)"
        let reading = naming.wire(generated)
        if viaBLE.contains(key) { return }
        if routes.withheld.contains(reading.kind) {
            withheldCount += 1
            if reading.delivery.corruption != nil { withheldCorrupt[generated.id] = reading.kind }
            return
        }
        let fromMQTT = viaMQTT.contains(key)
        if !routes.isBuiltIn, reading.kind != .cuffPressure {
            if let found = routes.route(for: reading, fromMQTT: fromMQTT) {
                route(reading, key: key, via: found)
                return
            }
            // An MQTT device no route takes keeps the reference contract's MQTT message.
            if !fromMQTT {
                push(unroutable(reading, "no ingestion route of the SUT profile carries \(what(reading))"))
                return
            }
        }
        if fromMQTT {
            if var message = TrafficPlan.message(reading, encoder: encoder, start: start, topic: mqttTopic) {
                message.readings = [(generated.id, generated.intendedEmitTime)]
                message.patientID = generated.patientID
                message.deviceID = generated.deviceID
                if keepsDeviceTimes { message.deviceTimes = [reading.deviceTime] }
                push(message)
            }
            return
        }
        if !routes.isBuiltIn { return }  // cuff pressure: progress indications, not readings
        if reading.deviceType == .phoneBridge {
            let path = reading.kind == .dailySummary ? "/api/healthkit" : "/api/iot-heart-rate"
            let json = encoder.json(reading)
            var body = Array(json.serialized().utf8)
            var rejection: ExpectedRejection?
            if let corruption = reading.delivery.corruption {
                (body, rejection) = VitalEdgeJSON.corrupt(json, corruption)
            }
            push(single(reading, path: path, body: body, rejection: rejection))
            return
        }
        guard let json = ObservationJSON.encode(reading, start: start) else { return }
        if reading.delivery.corruption != nil || reading.delivery.duplicate {
            // Corrupted and duplicated readings travel alone, so that a refusal concerns only them.
            close(key)
            var body = Array(json.serialized().utf8)
            var rejection: ExpectedRejection?
            if let corruption = reading.delivery.corruption {
                (body, rejection) = ObservationJSON.corrupt(json, corruption)
            }
            push(single(reading, path: "/api/v1/observations", body: body, rejection: rejection))
            return
        }
        addToBatch(reading, key: key, json: json)
    }

    /// Closes the open batches whose window ended before the generator's time.
    func closeBatchesPastTheirWindow() {
        while openedHead < opened.count, opened[openedHead].first < now - TrafficPlan.batchWindow {
            let batch = opened[openedHead]
            openedHead += 1
            if open[batch.key]?.offset == batch.offset { close(batch.key) }
        }
        if openedHead > 4096, openedHead * 2 > opened.count {
            opened.removeFirst(openedHead)
            openedHead = 0
        }
    }

    /// A request carrying one reading (`r` under its wire ids; the request keeps the scenario's).
    func single(_ reading: Reading, path: String, body: [UInt8], rejection: ExpectedRejection?) -> PlannedRequest {
        let patient = naming.scenarioPatient(reading.patientID) ?? reading.patientID
        // What a refusal's finding says was sent (only corrupted readings carry a rejection).
        var rejection = rejection
        rejection?.corruption = reading.delivery.corruption?.rawValue
        if rejection?.level == nil, let corruption = reading.delivery.corruption {
            rejection?.level = RefusalLevel.of(corruption)
        }
        rejection?.sent = ExpectedRejection.start(of: body)
        var request = PlannedRequest(
            path: path,
            body: body,
            readings: [(naming.scenarioReadingID(reading.id), reading.intendedEmitTime)],
            patientID: patient,
            sendAt: reading.intendedEmitTime,
            expectedRejection: rejection,
            deviceID: naming.scenarioDevice(reading.deviceID, of: patient),
            kind: reading.kind
        )
        if keepsDeviceTimes { request.deviceTimes = [reading.deviceTime] }
        return request
    }

    /// Appends the observation to its device's open batch, or opens a new one when the batch's
    /// window has passed or it is full.
    func addToBatch(_ reading: Reading, key: String, json: JSONValue) {
        addToBatch(reading, key: key, item: Array(json.serialized().utf8)) { item in
            (
                self.single(reading, path: "/api/v1/observations", body: [UInt8(ascii: "[")] + item, rejection: nil),
                [UInt8(ascii: "]")],
                TrafficPlan.maxBatch
            )
        }
    }

    /// Appends `item` to the open batch under `key`, or opens a new one (`opening`: the request with
    /// its first item, the bytes that close it, its limit) when the batch's window has passed or it is full.
    func addToBatch(
        _ reading: Reading,
        key: String,
        item: [UInt8],
        opening: ([UInt8]) -> (request: PlannedRequest, suffix: [UInt8], limit: Int)
    ) {
        if var batch = open[key], reading.intendedEmitTime - batch.first <= TrafficPlan.batchWindow,
            batch.request.readings.count < batch.limit
        {
            open[key] = nil  // keep the batch's buffers uniquely referenced while appending
            batch.request.readings.append((naming.scenarioReadingID(reading.id), reading.intendedEmitTime))
            batch.request.kinds.insert(reading.kind)
            if keepsDeviceTimes { batch.request.deviceTimes.append(reading.deviceTime) }
            batch.request.sendAt = reading.intendedEmitTime
            batch.request.body.append(UInt8(ascii: ","))
            batch.request.body.append(contentsOf: item)
            open[key] = batch
            return
        }
        close(key)
        let (request, suffix, limit) = opening(item)
        open[key] = (request, created, reading.intendedEmitTime, suffix, limit)
        opened.append((key, created, reading.intendedEmitTime))
        created += 1
    }

    /// A request complete when created (a single reading, a message).
    func push(_ plannedRequest: PlannedRequest) {
        insertReady(plannedRequest, offset: created)
        created += 1
    }

    /// Closes a device's open batch (its body gets the closing `]`) and queues it.
    func close(_ key: String) {
        guard var batch = open.removeValue(forKey: key) else { return }
        batch.request.body.append(contentsOf: batch.suffix)
        insertReady(batch.request, offset: batch.offset)
    }

    static func before(_ a: (request: PlannedRequest, offset: Int), _ b: (request: PlannedRequest, offset: Int)) -> Bool
    {
        (a.request.sendAt, a.offset) < (b.request.sendAt, b.offset)
    }

    func insertReady(_ plannedRequest: PlannedRequest, offset: Int) {
        ready.append((plannedRequest, offset))
        var child = ready.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(ready[child], ready[parent]) else { break }
            ready.swapAt(child, parent)
            child = parent
        }
    }

    func popReady() -> PlannedRequest {
        let top = ready[0].request
        let last = ready.removeLast()
        guard !ready.isEmpty else { return top }
        ready[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < ready.count, Self.before(ready[left], ready[smallest]) { smallest = left }
            if right < ready.count, Self.before(ready[right], ready[smallest]) { smallest = right }
            if smallest == parent { break }
            ready.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
