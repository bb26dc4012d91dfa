import Traffic
import VitalSimCore

/// What `vitalsim coverage` knows of a scenario it has not run: the scenario, its golden file (nil:
/// none), and what its requests carry as the reference contract sends them (``PlannedTraffic``).
/// Each area names from it the checks a run of the scenario would make (``ConformanceArea/exercised(by:)``).
package struct ExercisePlan: Sendable {
    package var scenario: Scenario
    package var golden: GoldenFile?
    package var traffic: PlannedTraffic

    package init(_ scenario: Scenario, golden: GoldenFile?) {
        self.scenario = scenario
        self.golden = golden
        traffic = PlannedTraffic(scenario)
    }

    /// A check named as the judge names it, with nothing observed.
    package func check(_ kind: CheckKind, _ name: String, rule: String? = nil) -> Check {
        Check(kind: kind, name: name, rule: rule, finding: nil, detail: "")
    }
}

/// What a scenario's requests carry, read once from its plan.
package struct PlannedTraffic: Sendable {
    /// `P/D` → the kinds of its valid readings.
    package var validKinds: [String: [VitalKind]] = [:]
    /// The first reading id of each corrupted request → its kind.
    package var corruptKinds: [String: VitalKind] = [:]
    /// The kind of invalidity of each corrupted reading (its first id), as its refusal check has it.
    package var corruptLevels: [String: RefusalLevel] = [:]
    package var validPaths: Set<String> = []
    package var corruptPaths: Set<String> = []
    package var overHTTP = false
    package var overMQTT = false
    /// Raw GATT values sent (MQTT relays), by characteristic (`2A5F`).
    package var characteristics: Set<String> = []
    /// Valid daily summaries sent.
    package var summaries = 0
    /// Whether a phone bridge sends payloads again (`duplicates`) or retries them late (`disconnect`).
    package var phoneResends = false
    /// Phone bridges with real-time monitoring or the daily summary switched off, and what is off.
    package var phonesSwitchedOff: [(device: String, off: String)] = []

    package init(_ scenario: Scenario) {
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
        for request in TrafficPlanStream(for: scenario) { add(request) }
    }

    mutating func add(_ request: PlannedRequest) {
        guard let kind = request.kinds.first else { return }
        let device = request.patientID + "/" + request.deviceID
        if request.expectedRejection == nil {
            for other in request.kinds where validKinds[device]?.contains(other) != true {
                validKinds[device, default: []].append(other)
            }
            if request.topic == nil { validPaths.insert(request.path) }
            if request.kinds.contains(.dailySummary) { summaries += 1 }
        } else {
            if let first = request.readings.first?.id {
                corruptKinds[first] = kind
                corruptLevels[first] = request.expectedRejection?.level
            }
            if request.topic == nil { corruptPaths.insert(request.path) }
        }
        if request.topic == nil { overHTTP = true } else { overMQTT = true }
        if let characteristic = request.userProperties.first(where: { $0.name == "characteristic" })?.value {
            characteristics.insert(characteristic.uppercased())
        }
    }

    /// The kinds a check's subject (a corrupted reading's id, or a device `P/D`) carried.
    package func kinds(of subject: String) -> [VitalKind] {
        corruptKinds[subject].map { [$0] } ?? validKinds[subject] ?? []
    }
}
