import Bluetooth
import Judge
import RunRecord
import Traffic
import VitalSimCore

/// What one scenario exercises of the catalogue: the checks a judge makes of a run of it against a
/// conforming SUT (read from its golden file and its traffic as the reference contract sends it),
/// traced as a verdict's checks are (``ConformanceRegistry/requirements(of:kinds:)``), and what its traffic exercises that no
/// one check names (the VitalEdge endpoints and cadences, raw GATT values, HTTPS).
struct ScenarioExercise {
    /// A requirement id and the check (or the traffic) that exercises it.
    var exercised: [(id: String, how: String)] = []

    /// The seed's alert latency: a reading → alert budget on the maximum of at most this covers it.
    static let alertLatencyLimit = 2000.0

    init(
        _ scenario: Scenario,
        golden: GoldenFile?,
        modes: Set<Requirement.Applicability> = [.always],
        registry: ConformanceRegistry = .standard
    ) {
        let plan = ExercisePlan(scenario, golden: golden)
        var checks: [Check] = []
        for area in registry.areas {
            checks += area.exercised(by: plan).map { check in
                var check = check
                check.area = area.name
                return check
            }
        }
        for check in checks where check.kind == .budget {
            // The seed's alert latency, verified by a reading → alert budget on the maximum of at most 2 s.
            let budget = golden?.budgets.first { check.name.hasPrefix("budget \($0.path.rawValue) ") }
            guard let budget, budget.path != .readingToAck, budget.path != .schedulingLag else { continue }
            if budget.limits.contains(where: { percentile, limit in
                percentile >= 100 && limit <= Self.alertLatencyLimit
                    && check.name
                        == "budget \(budget.path.rawValue) \(GoldenFile.percentileName(percentile)) ≤ \(GoldenFile.ms(limit)) ms"
            }) {
                exercised.append(("alerts.latency", check.name))
            }
        }
        for check in checks {
            // A budget verifies the seed's 2 s only on the maximum, at 2 s or less (noted above).
            let ids = registry.requirements(of: check, kinds: plan.traffic.kinds(of:)).filter {
                !(check.kind == .budget && $0 == "alerts.latency")
            }
            exercised += ids.map { ($0, check.name) }
        }
        exercised += Self.trafficOnly(plan.traffic, golden: golden)
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

    /// What the traffic exercises beside the checks: the VitalEdge endpoints (the VitalEdge SDS §4.2), their
    /// cadences, HTTPS and raw GATT values.
    static func trafficOnly(_ traffic: PlannedTraffic, golden: GoldenFile?) -> [(id: String, how: String)] {
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
