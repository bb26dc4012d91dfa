import Foundation
import RunRecord
import Traffic
import VitalSimCore

/// What the notifications of a run's FHIR Subscriptions (``FHIRSubscriptions``) mean, as a state
/// machine: each notification goes in with the endpoint key it arrived on, and out come the answer
/// to give, the alerts it starts, and the references to fetch (id-only payloads). It keeps, per
/// Subscription, the episode under way, the readings already seen (a notification delivered twice
/// is one), and for Backport the handshake and event numbers, so that lost events show.
package struct SubscriptionNotifications: Sendable {
    /// One Subscription the harness created: its entry, and the patient's id at the server.
    package struct Registration: Sendable {
        package var rule: FHIRSubscriptions.Rule
        package var patient: String

        package init(rule: FHIRSubscriptions.Rule, patient: String) {
            self.rule = rule
            self.patient = patient
        }
    }

    /// What to do with one notification.
    package struct Reception: Sendable, Equatable {
        /// The HTTP status to answer with.
        package var status: Int
        /// The alerts it starts (at most one per episode).
        package var alerts: [ObservedAlert] = []
        /// Focus references of an id-only notification, to fetch and pass to ``resolved(key:resource:)``.
        package var fetch: [String] = []
        /// Why it was refused, for the run's report (nil when it was taken).
        package var refusal: String?
    }

    /// What one Subscription received so far.
    struct Track: Sendable {
        var registration: Registration
        var serverID: String?
        var handshake = false
        var eventNumbers: Set<Int> = []
        var eventsSinceStart = 0
    }

    /// The alerts of one patient and rule so far: the readings notified, by device stream and
    /// sequence number, and the device time of the last one of another shape. Several Subscriptions
    /// may serve one rule (a crisis by systolic or by diastolic pressure): their notifications make
    /// one episode.
    struct Episodes: Sendable {
        var count = 0
        var lastDeviceTime: Int64?
        var readings: Set<String> = []
        var sequences: [Substring: Set<UInt64>] = [:]
        /// The device time of each sequenced reading notified, and the alerts raised, in order.
        var times: [String: Int64] = [:]
        var raised: [ObservedAlert] = []

        /// Notes `reading`, stamped `time`; true when it continues an episode under way: the
        /// reading before or after it in its device's stream (`…/n−1`, `…/n+1`) was notified, so no
        /// reading that missed the criteria came between them. Ids of another shape continue one
        /// when no further than `gap` ms from the last.
        mutating func continues(_ reading: String?, at time: Int64, gap: Int64) -> Bool {
            defer { lastDeviceTime = max(lastDeviceTime ?? time, time) }
            if let reading, let (stream, number) = SubscriptionNotifications.sequenced(reading) {
                times[reading] = time
                let seen = sequences[stream, default: []]
                sequences[stream, default: []].insert(number)
                return (number > 0 && seen.contains(number - 1)) || seen.contains(number + 1)
            }
            guard let last = lastDeviceTime else { return false }
            return abs(time - last) <= gap
        }

        /// The alerts raised, once every notification is in: one per run of consecutive readings
        /// of a stream, the first raised, dated and evidenced by the run's first reading. Those that
        /// notifications delivered out of order raised within one run are nil (merged).
        func settled() -> [String: ObservedAlert?] {
            var out: [String: ObservedAlert?] = [:]
            for (stream, numbers) in sequences {
                var runs: [[UInt64]] = []
                for number in numbers.sorted() {
                    if let last = runs.last?.last, last + 1 == number {
                        runs[runs.count - 1].append(number)
                    } else {
                        runs.append([number])
                    }
                }
                for run in runs {
                    let ids = Set(run.map { "\(stream)/\($0)" })
                    let inRun = raised.filter { $0.evidence.first.map(ids.contains) == true }
                    guard var kept = inRun.first, let start = run.first else { continue }
                    let first = "\(stream)/\(start)"
                    kept.evidence = [first]
                    kept.raisedAt = times[first] ?? kept.raisedAt
                    out[kept.alertID] = kept
                    for merged in inRun.dropFirst() { out[merged.alertID] = .some(nil) }
                }
            }
            return out
        }
    }

    let settings: FHIRSubscriptions
    var tracks: [String: Track] = [:]
    /// By `rule|patient`.
    var episodes: [String: Episodes] = [:]
    /// Keys in registration order, so that summaries read in a fixed order.
    var order: [String] = []

    package init(_ settings: FHIRSubscriptions) { self.settings = settings }

    /// Notes the Subscription whose notifications arrive on endpoint key `key`.
    package mutating func register(_ registration: Registration, key: String) {
        if tracks[key] == nil { order.append(key) }
        tracks[key] = Track(registration: registration)
    }

    /// The server's id of the Subscription on `key`.
    package mutating func created(_ id: String, key: String) { tracks[key]?.serverID = id }

    /// The endpoint keys and server ids of the Subscriptions created, in registration order.
    package var created: [(key: String, id: String)] {
        order.compactMap { key in tracks[key]?.serverID.map { (key, $0) } }
    }

    /// The server counted `events` events for the Subscription on `key`.
    mutating func counted(_ events: Int, key: String) {
        guard let before = tracks[key]?.eventsSinceStart else { return }
        tracks[key]?.eventsSinceStart = max(before, events)
    }

    /// The answer of the Backport IG's `$status` for the Subscription on `key` (a searchset of
    /// SubscriptionStatus Parameters): the events the server counted for it.
    package mutating func status(_ body: [UInt8], key: String) {
        guard let bundle = try? SUTJSON.document(body) as? [String: Any] else { return }
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        for entry in entries {
            let parameters = (entry["resource"] as? [String: Any])?["parameter"] as? [[String: Any]] ?? []
            if let count = Self.eventsSinceStart(parameters) { counted(count, key: key) }
        }
    }

    /// `events-since-subscription-start` of a SubscriptionStatus's parameters (a string in the R4
    /// Backport IG, an integer in some servers).
    static func eventsSinceStart(_ parameters: [[String: Any]]) -> Int? {
        let count = parameters.first { $0["name"] as? String == "events-since-subscription-start" }
        if let text = count?["valueString"] as? String { return Int(text) }
        return (count?["valueInteger64"] ?? count?["valueUnsignedInt"] ?? count?["valueInteger"]) as? Int
    }

    /// Whether the Subscription on `key` has had its Backport handshake.
    package func handshaken(_ key: String) -> Bool { tracks[key]?.handshake ?? false }

    /// True when there are Backport Subscriptions and each has had its handshake: the server reaches
    /// the receiver, so an alert that never comes is missed.
    package var allHandshaken: Bool { !tracks.isEmpty && tracks.values.allSatisfy(\.handshake) }

    /// A notification that arrived on endpoint key `key` with `body` (empty: none).
    package mutating func receive(key: String, body: [UInt8]) -> Reception {
        guard tracks[key] != nil else {
            return Reception(status: 404, refusal: "a notification on an endpoint no Subscription of this run has")
        }
        guard !body.isEmpty else {
            return Reception(
                status: 400,
                refusal:
                    "a notification without a body: the Subscription asked for a payload (\(settings.payload.rawValue))"
            )
        }
        guard let document = try? SUTJSON.document(body) as? [String: Any] else {
            return Reception(status: 400, refusal: "a notification that is not a JSON object: \(Self.excerpt(body))")
        }
        switch settings.style {
        case .restHook: return resolved(key: key, resource: document)
        case .backport: return backport(key: key, bundle: document, excerpt: Self.excerpt(body))
        }
    }

    /// The triggering resource of a notification on `key` (sent with it, or fetched by its reference).
    package mutating func resolved(key: String, resource: [String: Any]) -> Reception {
        guard let registration = tracks[key]?.registration else { return Reception(status: 404) }
        guard resource["resourceType"] is String else {
            return Reception(status: 400, refusal: "a notified resource without resourceType")
        }
        guard let time = Self.deviceTime(resource) else {
            return Reception(
                status: 400,
                refusal:
                    "a notified \(resource["resourceType"] ?? "") has no effectiveDateTime or effectivePeriod.start"
            )
        }
        let reading = Self.readingID(resource)
        let episodeKey = registration.rule.rule + "|" + registration.patient
        var episode = episodes[episodeKey] ?? Episodes()
        defer { episodes[episodeKey] = episode }
        if let reading, !episode.readings.insert(reading).inserted { return Reception(status: 200) }
        if episode.continues(reading, at: time, gap: settings.episodeGap.milliseconds) {
            return Reception(status: 200)
        }
        episode.count += 1
        let alert = ObservedAlert(
            alertID: "\(registration.rule.rule)/\(registration.patient)/\(episode.count)",
            patientID: registration.patient,
            rule: registration.rule.rule,
            severity: registration.rule.severity,
            raisedAt: time,
            evidence: reading.map { [$0] } ?? []
        )
        episode.raised.append(alert)
        return Reception(status: 200, alerts: [alert])
    }

    /// The alerts raised so far as they stand once every notification is in (by alert id; nil:
    /// merged into another): notifications delivered out of order may have started an episode at
    /// a later reading than its first, or two for one episode.
    package func settledAlerts() -> [String: ObservedAlert?] {
        var out: [String: ObservedAlert?] = [:]
        for episode in episodes.values { out.merge(episode.settled()) { $1 } }
        return out
    }

    /// A VitalSim reading id's device stream and sequence number (`508/thermo-508/12` → (`508/thermo-508`,
    /// 12)); nil for an id without a number after its last `/`.
    static func sequenced(_ reading: String) -> (stream: Substring, number: UInt64)? {
        guard let slash = reading.lastIndex(of: "/"), let number = UInt64(reading[reading.index(after: slash)...])
        else { return nil }
        return (reading[..<slash], number)
    }

    /// A Backport notification Bundle on `key`.
    mutating func backport(key: String, bundle: [String: Any], excerpt: String) -> Reception {
        guard bundle["resourceType"] as? String == "Bundle", bundle["type"] as? String == "history",
            let entries = bundle["entry"] as? [[String: Any]],
            let status = entries.first?["resource"] as? [String: Any],
            status["resourceType"] as? String == "Parameters"
        else {
            return Reception(
                status: 400,
                refusal:
                    "a Backport notification must be a history Bundle whose first entry is a Parameters resource: \(excerpt)"
            )
        }
        let parameters = status["parameter"] as? [[String: Any]] ?? []
        func value(_ name: String, _ key: String) -> Any? { parameters.first { $0["name"] as? String == name }?[key] }
        guard let type = value("type", "valueCode") as? String else {
            return Reception(status: 400, refusal: "a Backport notification without its type parameter: \(excerpt)")
        }
        if let count = Self.eventsSinceStart(parameters) { counted(count, key: key) }
        switch type {
        case "handshake":
            tracks[key]?.handshake = true
            return Reception(status: 200)
        case "event-notification": break
        default: return Reception(status: 200)
        }
        var reception = Reception(status: 200)
        let resources = entries.dropFirst().compactMap { $0["resource"] as? [String: Any] }
        for event in parameters where event["name"] as? String == "notification-event" {
            let parts = event["part"] as? [[String: Any]] ?? []
            func part(_ name: String) -> [String: Any]? { parts.first { $0["name"] as? String == name } }
            if let number = (part("event-number")?["valueString"] as? String).flatMap({ Int($0) }) {
                guard tracks[key]?.eventNumbers.insert(number).inserted ?? false else { continue }
            }
            let focus = (part("focus")?["valueReference"] as? [String: Any])?["reference"] as? String
            if let focus, let resource = resources.first(where: { Self.reference(of: $0, matches: focus) }) {
                let one = resolved(key: key, resource: resource)
                reception.alerts += one.alerts
                reception.refusal = reception.refusal ?? one.refusal
            } else if let focus {
                reception.fetch.append(focus)
            }
        }
        return reception
    }

    /// What the Subscriptions received, one line each for those that show a problem: a Backport
    /// handshake never received, events the server counted that never arrived.
    package func problems() -> [String] {
        order.compactMap { key in
            guard let track = tracks[key] else { return nil }
            let name = "the Subscription for \(track.registration.rule.rule) of patient \(track.registration.patient)"
            guard settings.style == .backport else { return nil }
            if !track.handshake { return "\(name) received no handshake" }
            let lost = track.eventsSinceStart - track.eventNumbers.count
            guard lost > 0 else { return nil }
            return
                "\(name): the server counted \(track.eventsSinceStart) event(s) (events-since-subscription-start), \(track.eventNumbers.count) arrived"
        }
    }

    /// The reading id VitalSim gave the resource (its `urn:vitalsim:reading` identifier), if any.
    static func readingID(_ resource: [String: Any]) -> String? {
        let identifiers = resource["identifier"] as? [[String: Any]] ?? []
        return identifiers.first { $0["system"] as? String == FHIRObservationJSON.identifierSystem }?["value"]
            as? String
    }

    /// The resource's device time, Unix ms: `effectiveDateTime`, `effectiveInstant` or `effectivePeriod.start`.
    static func deviceTime(_ resource: [String: Any]) -> Int64? {
        let text =
            resource["effectiveDateTime"] as? String ?? resource["effectiveInstant"] as? String
            ?? (resource["effectivePeriod"] as? [String: Any])?["start"] as? String
        return text.flatMap(CivilTime.unixMilliseconds(rfc3339:))
    }

    /// Whether `reference` (relative or absolute) names `resource`.
    static func reference(of resource: [String: Any], matches reference: String) -> Bool {
        guard let type = resource["resourceType"] as? String, let id = resource["id"] as? String else { return false }
        return reference == "\(type)/\(id)" || reference.hasSuffix("/\(type)/\(id)")
            || reference.contains("/\(type)/\(id)/_history/")
    }

    static func excerpt(_ body: [UInt8]) -> String { String(decoding: body.prefix(200), as: UTF8.self) }
}
