import Traffic
import VitalSimCore

/// What the SUT must hold after a run: every reading it acknowledged (a 2xx answer, or an MQTT
/// PUBACK the SUT did not refuse) that carried no deliberate corruption, with the values and device
/// time it was sent with. Built after the run from the scenario, regenerated with the run's seed
/// (the traffic digest proves it is what was sent).
package struct StoredDataExpectations: Sendable {
    /// One acknowledged reading.
    package struct Entry: Sendable, Equatable {
        package var id: String
        /// Device time, Unix ms.
        package var time: Int64
        /// Values by signal, in VitalSim's units.
        package var values: [Signal: Double]
        /// The reading's kind (for messages).
        package var kind: VitalKind
        /// True when its payload carries no reading id (a VitalEdge phone bridge): the SUT names it
        /// itself, so it is matched by kind and device time.
        package var selfNamed: Bool

        package init(id: String, time: Int64, values: [Signal: Double], kind: VitalKind, selfNamed: Bool = false) {
            self.id = id
            self.time = time
            self.values = values
            self.kind = kind
            self.selfNamed = selfNamed
        }
    }

    /// Acknowledged readings by patient, in the order they were generated.
    package var byPatient: [String: [Entry]]
    /// `patient/device` of the devices carried over a live BLE link: a gateway answers no status, so
    /// their readings are not expected, and what the SUT stored of them is not judged.
    package var linkedDevices: Set<String>

    /// Ids of the readings sent corrupt (and never acknowledged in a valid request): a SUT that
    /// stored one fails its refusal check; its stored copy is not judged as data.
    package var corrupted: Set<String> = []
    /// Ids of the readings written as plain FHIR creates (`writes: create`): a copy stored again
    /// when one is sent again is what FHIR prescribes, so they are not judged held once.
    package var plainCreates: Set<String> = []

    package init(byPatient: [String: [Entry]], linkedDevices: Set<String> = []) {
        self.byPatient = byPatient
        self.linkedDevices = linkedDevices
    }

    /// The acknowledged readings of a run (`sent[i]` answered with `statuses[i]`, nil: no final
    /// answer), with the values their route's format carries (a FHIR daily summary is its step
    /// count alone).
    package init(
        scenario: Scenario,
        seed: UInt64?,
        sent: [SentRequest],
        statuses: [Int?],
        bleLink: Bool,
        routes: IngestionRoutes = .vitalsim
    ) {
        // Each patient's acknowledged ids, regenerated one patient at a time (``PatientRuns``).
        var acknowledged: [String: Set<String>] = [:]
        var corrupted: Set<String> = []
        var valid: Set<String> = []
        for (i, request) in sent.enumerated() where i < statuses.count {
            guard request.expectedRejection == nil else {
                corrupted.formUnion(request.readingIDs)
                continue
            }
            valid.formUnion(request.readingIDs)
            guard let status = statuses[i], (200..<300).contains(status) else { continue }
            acknowledged[request.patientID, default: []].formUnion(request.readingIDs)
        }
        let selfNaming = Set(
            scenario.patients.flatMap { p in p.devices.filter { $0.type == .phoneBridge }.map { "\(p.id)/\($0.id)" } }
        )
        var byPatient: [String: [Entry]] = [:]
        var plainCreates: Set<String> = []
        PatientRuns.readings(acknowledged, of: scenario, seed: seed) { r in
            guard var values = Self.values(r.measurement) else { return }
            let route = routes.route(for: r)?.route
            if case .dailySummary = r.measurement, let format = route?.format, format.isFHIR {
                values[.calories] = nil
            }
            if let route, !route.isIdempotent { plainCreates.insert(r.id) }
            let entry = Entry(
                id: r.id,
                time: scenario.startUnixMilliseconds + r.deviceTime,
                values: values,
                kind: r.measurement.kind,
                selfNamed: selfNaming.contains("\(r.patientID)/\(r.deviceID)")
            )
            byPatient[r.patientID, default: []].append(entry)
        }
        let linked = bleLink ? scenario.bleDevices.map { "\($0.0)/\($0.1.id)" } : []
        self.init(byPatient: byPatient, linkedDevices: Set(linked))
        self.corrupted = corrupted.subtracting(valid)
        self.plainCreates = plainCreates
    }

    /// The values a SUT must keep of a measurement: what a clinician reads (heart rate; systolic and
    /// diastolic; glucose; SpO2; temperature; weight; a feed's volume; a day's steps and calories;
    /// the battery level); nil for a cuff's intermediate pressures, which are not observations.
    package static func values(_ measurement: Measurement) -> [Signal: Double]? {
        if case let .dailySummary(steps, calories) = measurement {
            return [.steps: Double(steps), .calories: Double(calories)]
        }
        return Oracle.signals(measurement)
    }
}
