import VitalSimCore

/// The reference SUT's deliberate faults (`vitalsim serve --fault …`), used to prove that every
/// harness check can fail. All off by default; the server announces them loudly when on.
package struct FaultPlan: Sendable, Equatable {
    /// Drop each alert with this probability (decided by a hash of the alert id, so reproducible).
    package var dropAlerts: Double = 0
    /// Publish alerts this much later (milliseconds of wall time).
    package var delayAlertsMilliseconds: Int64 = 0
    /// Acknowledge invalid payloads with 200/201 instead of rejecting them (they are not stored).
    package var acceptInvalid = false
    /// Refuse invalid payloads as the VitalEdge SDS words it and no more: the status and "Invalid data",
    /// naming no field.
    package var bareRefusals = false
    /// Publish alerts with a wrong severity.
    package var wrongSeverity = false
    /// Publish every alert twice (the copy with its own id).
    package var duplicateAlerts = false
    /// Publish alerts citing the wrong readings: each evidence id becomes its device's first reading of
    /// that kind (`…/0`), a reading of the right patient and signal but long before the rule's window.
    package var wrongEvidence = false
    /// Never raise these rules.
    package var missRules: Set<String> = []
    /// Die (like `kill -9`) when reading N+1 arrives, after N accepted readings.
    package var crashAfter: Int?
    /// Answer every ingestion request with 503 (an outage that never ends).
    package var unavailable = false
    /// How the alert API misbehaves, if it does.
    package var alertAPI: AlertAPIFault?
    /// Acknowledge each new reading but leave it out of storage with this probability (decided by a
    /// hash of the reading id): alerts are raised from it, read-back never shows it.
    package var loseStored: Double = 0
    /// Acknowledge each new reading but store its values 10 % high with this probability (decided by
    /// a hash of the reading id): alerts are raised from the true values.
    package var alterStored: Double = 0
    /// Judge every patient by the rules' own limits, ignoring those set for the patient.
    package var ignoreLimits = false
    /// Compare off by one: every threshold's strictness flipped (`>` as `>=`, `<=` as `<`, …).
    package var offByOne = false
    /// Store a reading sent again (a retry after a reset or a timeout, a duplicate) once more, under
    /// an id of the SUT's own (``retryID(_:copy:)``), instead of acknowledging it as already held:
    /// at-least-once delivery left without idempotence. Alerts are raised once, as before.
    package var storeRetries = false
    /// Answer every VitalEdge daily summary (`POST /api/healthkit`) with 400, valid ones included: a
    /// backend that refuses what the VitalEdge SDS §4.2 says it takes.
    package var refuseSummaries = false
    /// Leave the readings of the last UTC day of each month out of every read-back that asks for a
    /// time period (`from`/`to`): an off-by-one at the month's end that the full listing does not show.
    package var periodDropsMonthEnd = false
    /// Answer a read-back that asks for a kind of reading with readings of every kind.
    package var kindIgnored = false
    /// Let every person read every patient's data, whoever's care they are in: broken object-level
    /// authorization (OWASP API Security Top 10, API1:2023).
    package var crossPatientRead = false
    /// Honour expired and revoked people's credentials as if they were valid.
    package var staleCredentials = false
    /// Notify everyone in the patient's care team, and the patient, of every alert when it is
    /// raised, whatever the escalation policy says.
    package var everyoneNotified = false
    /// Notify only the first step of each escalation policy: an alert nobody acknowledges never
    /// reaches the next people.
    package var noEscalation = false
    /// Keep no audit trail: people's reads and changes of patients' data go unrecorded.
    package var noAudit = false
    /// Answer a patient's deletion 204 and keep everything of theirs readable.
    package var keepDeleted = false

    /// A broken alert API (`alert-api=…`): what a misconfigured or failing alert source looks like.
    package enum AlertAPIFault: String, Sendable, CaseIterable {
        /// 500 with an error body.
        case error
        /// 200 with a body that is not JSON.
        case garbage
        /// 200 with alerts missing their `raisedAt`.
        case unreadable
    }

    package init() {}

    /// Every option spelling, for messages.
    package static let spellings =
        "drop-alerts=P, delay-alerts=DURATION, accept-invalid, bare-refusals, wrong-severity, wrong-evidence, duplicate-alerts, miss-rule=RULE, crash-after=N, unavailable, alert-api=error|garbage|unreadable, lose-stored=P, alter-stored=P, ignore-limits, off-by-one, store-retries, refuse-summaries, period-drops-month-end, kind-ignored, cross-patient-read, stale-credentials, everyone-notified, no-escalation, no-audit, keep-deleted"

    /// Adds one `--fault` value; throws a message naming the problem.
    package mutating func add(_ text: String, knownRules: Set<String>) throws(FaultPlanError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts.first ?? ""
        let value = parts.count > 1 ? parts[1] : nil
        func needValue() throws(FaultPlanError) -> String {
            guard let value, !value.isEmpty else {
                throw FaultPlanError(text: text, reason: "\(name) needs a value (\(name)=…)")
            }
            return value
        }
        func noValue() throws(FaultPlanError) {
            if value != nil { throw FaultPlanError(text: text, reason: "\(name) takes no value") }
        }
        if let flag = Self.flag(name) {
            try noValue()
            self[keyPath: flag] = true
            return
        }
        switch name {
        case "drop-alerts", "lose-stored", "alter-stored":
            guard let probability = Double(try needValue()), probability > 0, probability <= 1 else {
                throw FaultPlanError(text: text, reason: "P must be a probability in (0, 1]")
            }
            switch name {
            case "lose-stored": loseStored = probability
            case "alter-stored": alterStored = probability
            default: dropAlerts = probability
            }
        case "delay-alerts":
            guard let virtualDuration = VirtualDuration(parsing: try needValue()), virtualDuration.milliseconds > 0
            else {
                throw FaultPlanError(text: text, reason: "DURATION must be positive, like 500ms, 2s or 1m")
            }
            delayAlertsMilliseconds = virtualDuration.milliseconds
        case "miss-rule":
            let rule = try needValue()
            guard knownRules.contains(rule) else {
                throw FaultPlanError(
                    text: text,
                    reason: "unknown rule \(rule); rules: \(knownRules.sorted().joined(separator: ", "))"
                )
            }
            missRules.insert(rule)
        case "alert-api":
            guard let alertAPIFault = AlertAPIFault(rawValue: try needValue()) else {
                throw FaultPlanError(
                    text: text,
                    reason: "valid: alert-api=error, alert-api=garbage, alert-api=unreadable"
                )
            }
            alertAPI = alertAPIFault
        case "crash-after":
            guard let count = Int(try needValue()), count >= 0 else {
                throw FaultPlanError(text: text, reason: "N must be a whole number ≥ 0")
            }
            crashAfter = count
        default:
            throw FaultPlanError(text: text, reason: "unknown fault; valid: \(FaultPlan.spellings)")
        }
    }

    /// The switch a fault without a value turns on, if `name` is one.
    static func flag(_ name: String) -> WritableKeyPath<FaultPlan, Bool>? {
        switch name {
        case "accept-invalid": \.acceptInvalid
        case "bare-refusals": \.bareRefusals
        case "wrong-severity": \.wrongSeverity
        case "wrong-evidence": \.wrongEvidence
        case "duplicate-alerts": \.duplicateAlerts
        case "unavailable": \.unavailable
        case "ignore-limits": \.ignoreLimits
        case "off-by-one": \.offByOne
        case "store-retries": \.storeRetries
        case "refuse-summaries": \.refuseSummaries
        case "period-drops-month-end": \.periodDropsMonthEnd
        case "kind-ignored": \.kindIgnored
        case "cross-patient-read": \.crossPatientRead
        case "stale-credentials": \.staleCredentials
        case "everyone-notified": \.everyoneNotified
        case "no-escalation": \.noEscalation
        case "no-audit": \.noAudit
        case "keep-deleted": \.keepDeleted
        default: nil
        }
    }

    /// True when any fault is on.
    package var isActive: Bool { self != FaultPlan() }

    /// One line per active fault, for the start-up banner.
    package var summary: [String] {
        var out: [String] = []
        if dropAlerts > 0 { out.append("drop-alerts=\(dropAlerts): alerts are dropped at random") }
        if delayAlertsMilliseconds > 0 {
            out.append("delay-alerts=\(delayAlertsMilliseconds)ms: alerts are published late")
        }
        if acceptInvalid { out.append("accept-invalid: invalid payloads are acknowledged instead of rejected") }
        if bareRefusals { out.append("bare-refusals: refusals say only \"Invalid data\", naming no field") }
        if wrongSeverity { out.append("wrong-severity: alerts carry the wrong severity") }
        if wrongEvidence { out.append("wrong-evidence: alerts cite their devices' first readings as evidence") }
        if duplicateAlerts { out.append("duplicate-alerts: every alert is published twice") }
        for r in missRules.sorted() { out.append("miss-rule=\(r): this rule never fires") }
        if let crashAfter {
            out.append("crash-after=\(crashAfter): the process dies when reading \(crashAfter + 1) arrives")
        }
        if unavailable { out.append("unavailable: every ingestion request is answered 503") }
        if let alertAPI { out.append("alert-api=\(alertAPI.rawValue): the alert API is broken") }
        if loseStored > 0 {
            out.append("lose-stored=\(loseStored): acknowledged readings are left out of storage at random")
        }
        if alterStored > 0 {
            out.append("alter-stored=\(alterStored): acknowledged readings are stored 10 % high at random")
        }
        if ignoreLimits { out.append("ignore-limits: patients' own alert limits are ignored") }
        if offByOne { out.append("off-by-one: every threshold comparison has the wrong strictness (> as >=, < as <=)") }
        if storeRetries { out.append("store-retries: a reading sent again is stored once more") }
        if refuseSummaries { out.append("refuse-summaries: every daily summary is answered 400, valid ones included") }
        if periodDropsMonthEnd {
            out.append("period-drops-month-end: read-backs by time period leave out the last day of each month")
        }
        if kindIgnored { out.append("kind-ignored: read-backs by kind list readings of every kind") }
        if crossPatientRead { out.append("cross-patient-read: every person reads every patient's data") }
        if staleCredentials { out.append("stale-credentials: expired and revoked credentials are honoured") }
        if everyoneNotified { out.append("everyone-notified: the whole care team is notified of every alert at once") }
        if noEscalation { out.append("no-escalation: an unacknowledged alert never escalates past its first step") }
        if noAudit { out.append("no-audit: people's reads and changes of patients' data are not recorded") }
        if keepDeleted { out.append("keep-deleted: a deleted patient's readings and alerts stay readable") }
        return out
    }

    /// Applies the alert faults to freshly raised alerts.
    package func apply(_ alerts: [Alert]) -> [Alert] {
        var out: [Alert] = []
        for var alert in alerts where !missRules.contains(alert.rule) {
            if dropAlerts > 0, SeededRandom.unit(0xFA17, SeededRandom.fnv1a(alert.alertID)) < dropAlerts { continue }
            if wrongSeverity { alert.severity = alert.severity == .high ? .low : .high }
            if wrongEvidence { alert.evidence = alert.evidence.map(Self.firstOfItsKind) }
            out.append(alert)
            if duplicateAlerts {
                var copy = alert
                copy.alertID += "-again"
                out.append(copy)
            }
        }
        return out
    }
}

extension FaultPlan {
    /// What storage receives of acknowledged readings: with `lose-stored`, some left out; with
    /// `alter-stored`, some with every value 10 % high (one decimal).
    package func stored(_ observations: [Observation]) -> [Observation] {
        guard loseStored > 0 || alterStored > 0 else { return observations }
        var out: [Observation] = []
        for var observation in observations {
            let key = SeededRandom.fnv1a(observation.patientID + "/" + observation.readingID)
            if loseStored > 0, SeededRandom.unit(0x5705, key) < loseStored { continue }
            if alterStored > 0, SeededRandom.unit(0xA17E, key) < alterStored {
                observation.values = observation.values.mapValues { ($0 * 11).rounded() / 10 }
            }
            out.append(observation)
        }
        return out
    }

    /// The id the `store-retries` fault stores the `copy`-th repeat of a reading under.
    package static func retryID(_ id: String, copy: Int) -> String { "\(id)~retry\(copy)" }

    /// `PATIENT/DEVICE/[KIND/]SEQ` with the sequence number 0: the device's first reading of that kind.
    static func firstOfItsKind(_ id: String) -> String {
        guard let slash = id.lastIndex(of: "/") else { return id }
        return id[...slash] + "0"
    }
}

/// A faulty mode that cannot be used: its text and why.
package struct FaultPlanError: Error, Sendable, CustomStringConvertible {
    package var text: String
    package var reason: String
    package var description: String { "fault '\(text)': \(reason)" }
}
