import RunRecord
import Traffic
import VitalSimCore

/// Which requirements of the catalogue (docs/requirements.md) each check verifies: from the check's
/// kind and name, its alert rule (`rule.ID`), and the kind of the readings it is about
/// (`ingest.KIND.accept`, `ingest.KIND.refuse`). Every id it gives exists in the catalogue (the
/// Requirements module's tests hold it to that).
package enum RequirementTrace {
    /// The ids of the requirements `check` verifies; `kinds` gives the kinds of a reading (`P/D/N`)
    /// or a device (`P/D`) the run sent.
    package static func ids(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        let rule = check.rule.map { ["rule." + $0] } ?? []
        switch check.kind {
        case .alert: return rule + ["alerts.raised"]
        case .noOtherAlerts:
            if check.name.hasPrefix("duplicate ") { return rule + ["alerts.once-per-episode"] }
            if check.name.hasPrefix("unexpected ") { return rule + ["alerts.no-spurious"] }
            return ["alerts.no-spurious", "alerts.once-per-episode"]
        case .evidence: return rule + ["alerts.evidence"]
        case .validation: return ingestion(check.name, kinds: kinds)
        case .refusedField: return ingestion(check.name, kinds: kinds) + ["ingest.refusal-names-field"]
        case .budget: return budget(check.name)
        case .delivery: return delivery(check.name)
        case .storedData: return storedData(check.name)
        case .access: return access(check.name)
        case .recipients:
            return check.finding == .missedEscalation || check.finding == .lateEscalation
                || check.finding == .earlyEscalation || check.finding == .escalatedDespiteAck
                || check.name.hasPrefix("escalates ") || check.name.hasPrefix("does not escalate ")
                ? rule + ["alerts.recipients", "alerts.escalation"] : rule + ["alerts.recipients"]
        case .careAction: return rule + ["alerts.recipients"]
        case .audit: return ["access.audit"]
        case .traffic: return ["vitalsim.traffic-digest"]
        case .waiver: return ["vitalsim.waiver-expiry"]
        }
    }

    /// `rejects P/D/N` and `accepts P/D`: the refusal or acceptance of readings of their kinds.
    static func ingestion(_ name: String, kinds: (String) -> [VitalKind]) -> [String] {
        let refusal = name.hasPrefix("rejects ")
        let subject =
            name.dropFirst(refusal ? "rejects ".count : name.hasPrefix("accepts ") ? "accepts ".count : 0)
            .split(separator: " ").first.map(String.init) ?? ""
        let found = kinds(subject)
        let named = found.isEmpty ? kindNamed(in: subject).map { [$0] } ?? [] : found
        let suffix = refusal ? ".refuse" : ".accept"
        guard !named.isEmpty else { return ["ingest.any" + suffix] }
        var ids: [String] = []
        for kind in named where !ids.contains("ingest.\(kind.rawValue)\(suffix)") {
            ids.append("ingest.\(kind.rawValue)\(suffix)")
        }
        return ids
    }

    /// The kind a secondary reading's id (`P/D/daily-summary/0`) or its group (`P/D/daily-summary`,
    /// as an acceptance check names it) names, if any.
    static func kindNamed(in id: String) -> VitalKind? {
        let parts = id.split(separator: "/")
        if parts.count == 3, let kind = VitalKind(rawValue: String(parts[2])) { return kind }
        guard parts.count >= 4 else { return nil }
        return VitalKind(rawValue: String(parts[parts.count - 2]))
    }

    /// `budget PATH pNN ≤ LIMIT ms`: acknowledgement or alert latency.
    static func budget(_ name: String) -> [String] {
        let path = name.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        guard let latency = LatencyPath(rawValue: path) else { return ["ingest.ack-latency"] }
        switch latency {
        case .readingToAck, .schedulingLag: return ["ingest.ack-latency"]
        case .readingToAlert: return ["alerts.latency"]
        case .readingToAlertMQTT, .readingToAlertSSE, .readingToAlertWebhook:
            return ["alerts.latency", "alerts.pushed"]
        }
    }

    static func delivery(_ name: String) -> [String] {
        if name.hasPrefix("alerts delivered via ") { return ["alerts.pushed"] }
        if name == "every MQTT reading reached the SUT" { return ["ingest.answered", "ingest.mqtt-confirmed"] }
        if name == "every BLE reading sent to a subscribed central" { return ["ingest.ble-gateway", "gatt.0x2902"] }
        return ["ingest.answered"]
    }

    /// `access ROLE PERSON [STATE credential] OPERATION patient P (in care|not in care)`.
    static func access(_ name: String) -> [String] {
        if name.hasSuffix(" readable after deletion") { return ["access.deletion"] }
        if name.contains(" expired credential ") || name.contains(" revoked credential ") {
            return ["access.stale-credentials"]
        }
        let writes = AccessProbe.Operation.allCases.filter(\.writes).contains {
            name.contains(" \($0.rawValue) patient ")
        }
        // Another patient's data: object-level authorization; a write: what the role may do.
        if name.hasSuffix("(not in care)") { return ["access.authorized-only"] + (writes ? ["access.roles"] : []) }
        return writes ? ["access.roles"] : ["access.authorized-only"]
    }

    static func storedData(_ name: String) -> [String] {
        if name.hasSuffix(" kept") { return ["store.kept"] }
        if name.hasSuffix(" unaltered") { return ["store.unaltered"] }
        if name.hasSuffix(" held once") { return ["store.once"] }
        if name.hasSuffix(" per day and month") { return ["query.by-day", "query.by-month"] }
        if name.contains(" by period ") { return ["query.by-period"] }
        if name.contains(" by kind ") { return ["query.by-kind"] }
        return ["store.kept"]
    }
}

extension Verdict {
    /// Sets each check's requirement ids (``RequirementTrace``), the kinds of its readings read from
    /// the requests `plan` sent.
    package mutating func traceRequirements(plan: [SentRequest]) {
        var byDevice: [String: VitalKindSet] = [:]
        for request in plan {
            byDevice[request.patientID + "/" + request.deviceID, default: VitalKindSet()].formUnion(request.kinds)
        }
        // A reading's kind: its request's; a device's: every kind it sent.
        let rejected = checks.compactMap { check -> String? in
            guard check.kind == .validation || check.kind == .refusedField, check.name.hasPrefix("rejects ") else {
                return nil
            }
            return check.name.dropFirst("rejects ".count).split(separator: " ").first.map(String.init)
        }
        let carriers = SentRequest.carriers(of: rejected, in: plan)
        let kinds: (String) -> [VitalKind] = { subject in
            // A corrupted reading travels alone: its request's kind is its own.
            if let i = carriers[subject]?.first, let kind = plan[i].kinds.first { return [kind] }
            return byDevice[subject].map(Array.init) ?? []
        }
        for i in checks.indices { checks[i].requirements = RequirementTrace.ids(of: checks[i], kinds: kinds) }
    }
}
