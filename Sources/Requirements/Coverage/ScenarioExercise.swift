import Bluetooth
import Judge
import RunRecord
import Traffic
import VitalSimCore

/// What one scenario exercises of the catalogue: the checks a judge makes of a run of it against a
/// conforming SUT (read from its golden file and its traffic as the reference contract sends it),
/// traced as a verdict's checks are (``RequirementTrace``), and what its traffic exercises that no
/// one check names (the VitalEdge endpoints and cadences, raw GATT values, HTTPS).
struct ScenarioExercise {
    /// A requirement id and the check (or the traffic) that exercises it.
    var exercised: [(id: String, how: String)] = []

    /// What the scenario's requests carry, read once from its plan.
    struct Traffic {
        /// `P/D` → the kinds of its valid readings.
        var validKinds: [String: [VitalKind]] = [:]
        /// The first reading id of each corrupted request → its kind.
        var corruptKinds: [String: VitalKind] = [:]
        var validPaths: Set<String> = []
        var corruptPaths: Set<String> = []
        var overHTTP = false
        var overMQTT = false
        /// Raw GATT values sent (MQTT relays), by characteristic (`2A5F`).
        var characteristics: Set<String> = []
        /// Valid daily summaries sent.
        var summaries = 0
        /// Whether a phone bridge sends payloads again (`duplicates`) or retries them late (`disconnect`).
        var phoneResends = false
        /// Phone bridges with real-time monitoring or the daily summary switched off, and what is off.
        var phonesSwitchedOff: [(device: String, off: String)] = []

        init(_ scenario: Scenario) {
            let phoneSpecs = scenario.patients.flatMap(\.devices).filter { $0.type == .phoneBridge }
            let phones = Set(phoneSpecs.map(\.id))
            for phone in phoneSpecs {
                let off = [
                    phone.realTimeMonitoring ? nil : "real-time monitoring",
                    phone.dailySummaries ? nil : "daily summary",
                ].compactMap { $0 }
                if !off.isEmpty { phonesSwitchedOff.append((phone.id, off.joined(separator: " and "))) }
            }
            phoneResends = scenario.timeline.contains { entry in
                guard case .fault(let fault) = entry, phones.contains(fault.deviceID) else { return false }
                return fault.kind == .duplicates || fault.kind == .disconnect
            }
            for request in TrafficPlanStream(for: scenario) {
                guard let kind = request.kinds.first else { continue }
                let device = request.patientID + "/" + request.deviceID
                if request.expectedRejection == nil {
                    for k in request.kinds where validKinds[device]?.contains(k) != true {
                        validKinds[device, default: []].append(k)
                    }
                    if request.topic == nil { validPaths.insert(request.path) }
                    if request.kinds.contains(.dailySummary) { summaries += 1 }
                } else {
                    if let first = request.readings.first?.id { corruptKinds[first] = kind }
                    if request.topic == nil { corruptPaths.insert(request.path) }
                }
                if request.topic == nil { overHTTP = true } else { overMQTT = true }
                if let c = request.userProperties.first(where: { $0.name == "characteristic" })?.value {
                    characteristics.insert(c.uppercased())
                }
            }
        }
    }

    /// The recipients, escalations and care-team actions a golden file and the scenario's timeline
    /// make the judge check, named as it names them (``Verdict/recipientChecks(_:_:)``).
    static func recipientChecks(_ scenario: Scenario, _ golden: GoldenFile) -> [Check] {
        var checks: [Check] = []
        func check(_ kind: CheckKind, _ name: String, rule: String? = nil) {
            checks.append(Check(kind: kind, name: name, rule: rule, finding: nil, detail: ""))
        }
        for alert in golden.alerts {
            let subject = "\(alert.rule) patient \(alert.patientID)"
            for r in alert.recipients ?? [] {
                check(.recipients, Verdict.recipientName(r, subject: subject), rule: alert.rule)
            }
            for w in alert.withheld {
                check(.recipients, "does not escalate \(subject) to \(w.person)", rule: alert.rule)
            }
            if alert.recipients != nil { check(.recipients, "notifies nobody else of \(subject)", rule: alert.rule) }
        }
        for a in scenario.careActions where a.action.stopsEscalation {
            check(.careAction, Verdict.careActionName(a, subject: "\(a.rule ?? "alert") patient \(a.patient)"))
        }
        return checks
    }

    /// The seed's alert latency: a reading → alert budget on the maximum of at most this covers it.
    static let alertLatencyLimit = 2000.0

    init(_ scenario: Scenario, golden: GoldenFile?, modes: Set<Requirement.Applicability> = [.always]) {
        let traffic = Traffic(scenario)
        var checks: [Check] = []
        func check(_ kind: CheckKind, _ name: String, rule: String? = nil) {
            checks.append(Check(kind: kind, name: name, rule: rule, finding: nil, detail: ""))
        }
        if let golden {
            check(.traffic, "traffic digest")
            for alert in golden.alerts {
                check(.alert, "alert \(alert.rule) patient \(alert.patientID)", rule: alert.rule)
            }
            if !golden.alerts.isEmpty { check(.evidence, "alert evidence") }
            checks += Self.recipientChecks(scenario, golden)
            for entry in golden.validation {
                check(.validation, "rejects \(entry.reading)")
                if entry.field != "*" { check(.refusedField, "rejects \(entry.reading) naming its field") }
            }
            for budget in golden.budgets {
                for (percentile, limit) in budget.limits {
                    // Named as the judge names the check (Verdict.budgetChecks).
                    let name = GoldenFile.percentileName(percentile)
                    check(.budget, "budget \(budget.path.rawValue) \(name) ≤ \(GoldenFile.ms(limit)) ms")
                    let isAlert = budget.path != .readingToAck && budget.path != .schedulingLag
                    if isAlert, percentile >= 100, limit <= Self.alertLatencyLimit {
                        exercised.append(("alerts.latency", checks[checks.count - 1].name))
                    }
                }
            }
        }
        check(.noOtherAlerts, "no other alerts")
        for device in traffic.validKinds.keys.sorted() { check(.validation, "accepts \(device)") }
        check(.delivery, "every reading acknowledged or rejected")
        if traffic.overMQTT { check(.delivery, "every MQTT reading reached the SUT") }
        for patient in scenario.patients.map(\.id) {
            for name in ["kept", "unaltered", "held once"] {
                check(.storedData, "stored readings of patient \(patient) \(name)")
            }
            check(.storedData, "stored reading counts of patient \(patient) per day and month")
        }
        // Narrowed read-backs of the first patients with readings (StoredReadBackFetch).
        let senders = Set(traffic.validKinds.keys.map { String($0.prefix { $0 != "/" }) })
        for patient in scenario.patients.prefix(ReadBackQuery.patientLimit).map(\.id).filter(senders.contains) {
            check(.storedData, "stored readings of patient \(patient) by period (each month, each month boundary)")
            check(.storedData, "stored readings of patient \(patient) by kind (each kind held)")
        }
        // The access matrix, as a run makes it whose profile holds the people's credentials (the
        // embedded SUT's run does: a valid one each, an expired and a revoked one of the first member).
        let stale: [(person: String, credential: AccessProbe.Credential)] =
            scenario.careTeamPeople.first.map { [($0.person.id, .expired), ($0.person.id, .revoked)] } ?? []
        for probe in AccessProbe.planned(scenario, people: AccessProbe.people(of: scenario), stale: stale) {
            check(.access, probe.name)
        }
        // What is left of each patient after the embedded SUT's run deletes them (DeletionReadBack).
        for patient in scenario.patients { check(.access, "nothing of patient \(patient.id) readable after deletion") }
        // The audit trail, read back after the matrix: a check per person (Verdict.auditChecks).
        for person in AuditPerson.of(scenario) {
            check(.audit, "audit trail of \(person.role.rawValue) \(person.person)")
        }
        let kinds: (String) -> [VitalKind] = { subject in
            traffic.corruptKinds[subject].map { [$0] } ?? traffic.validKinds[subject] ?? []
        }
        for c in checks {
            // A budget verifies the seed's 2 s only on the maximum, at 2 s or less (noted above).
            let ids = RequirementTrace.ids(of: c, kinds: kinds).filter {
                !(c.kind == .budget && $0 == "alerts.latency")
            }
            exercised += ids.map { ($0, c.name) }
        }
        exercised += Self.trafficOnly(traffic, golden: golden)
        if modes.contains(.bleLink) { exercised += Self.overBLELink(scenario) }
        if modes.contains(.pushChannels), let golden, !golden.alerts.isEmpty {
            exercised.append(("alerts.pushed", "alerts delivered via each observed channel"))
        }
    }

    /// What a run over a BLE link exercises (`--ble hci`): each Bluetooth device that goes over it
    /// (transport `ble`) serves the SUT's gateway the characteristics and descriptors of its GATT
    /// database, whose delivery is checked (`every BLE reading sent to a subscribed central`).
    static func overBLELink(_ scenario: Scenario) -> [(id: String, how: String)] {
        var out: [(id: String, how: String)] = []
        for device in scenario.patients.flatMap(\.devices) where device.type.isBluetooth && device.transport == .ble {
            if out.isEmpty { out.append(("ingest.ble-gateway", "every BLE reading sent to a subscribed central")) }
            for attribute in GATTDatabase.forDevice(device.type, name: device.id).attributes
            where GATTServices.byCharacteristic[attribute.type] != nil {
                let id = "gatt.0x" + String(attribute.type, radix: 16, uppercase: true)
                if !out.contains(where: { $0.id == id }) { out.append((id, "served over a BLE link by \(device.id)")) }
            }
        }
        return out
    }

    /// What the traffic exercises beside the checks: the VitalEdge endpoints (seed 001 §4.2), their
    /// cadences, HTTPS and raw GATT values.
    static func trafficOnly(_ traffic: Traffic, golden: GoldenFile?) -> [(id: String, how: String)] {
        var out: [(id: String, how: String)] = []
        let refusalsJudged = !(golden?.validation.isEmpty ?? true)
        if traffic.validPaths.contains("/api/iot-heart-rate") {
            out += [
                ("vitaledge.heart-rate-endpoint", "valid POST /api/iot-heart-rate"),
                ("vitaledge.heart-rate-interval", "heart rates at the phone's interval"),
            ]
        }
        if traffic.corruptPaths.contains("/api/iot-heart-rate"), refusalsJudged {
            out.append(("vitaledge.heart-rate-invalid", "invalid POST /api/iot-heart-rate refused"))
        }
        if traffic.validPaths.contains("/api/healthkit") {
            out.append(("vitaledge.summary-endpoint", "valid POST /api/healthkit"))
        }
        if traffic.summaries >= 2 { out.append(("vitaledge.summary-daily", "\(traffic.summaries) daily summaries")) }
        if traffic.corruptPaths.contains("/api/healthkit"), refusalsJudged {
            out.append(("vitaledge.summary-invalid", "invalid POST /api/healthkit refused"))
        }
        if traffic.validPaths.contains("/api/iot-heart-rate"), traffic.phoneResends {
            out.append(("vitaledge.retries", "phone payloads sent again or retried late, each to be held once"))
        }
        if golden != nil {
            for phone in traffic.phonesSwitchedOff {
                let how = "\(phone.device) with \(phone.off) off: its stored readings and the alerts judged"
                out.append(("vitaledge.toggles", how))
            }
        }
        if traffic.overHTTP {
            out.append(("transport.https", "readings over HTTPS (the embedded SUT, an https:// target)"))
        }
        for c in traffic.characteristics.sorted() { out.append(("gatt.0x" + c, "raw GATT values over MQTT")) }
        return out
    }
}
