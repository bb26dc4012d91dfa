import Foundation
import VitalSimCore

/// How a scenario's patient and device ids appear at the SUT (a SUT profile's `lifecycle.patient-id`
/// and `lifecycle.device-id`): with a run id in them, scenarios and repeated runs can share one
/// long-lived SUT without their patients meeting. Readings are generated under the scenario's ids
/// (so the physiology, the golden files and the traffic digest do not change) and renamed only as
/// they are written; what the SUT reports back (alerts, evidence, rejections) is renamed back, and
/// an alert of a patient outside the run is not the run's.
package struct WireNaming: Sendable {
    /// Scenario patient id → wire id, and back.
    let patients: [String: String]
    let scenarioPatients: [String: String]
    /// `patient/device` (scenario) → the device's wire id.
    let devices: [String: String]
    /// `wirePatient/wireDevice` → `patient/device`, for reading ids.
    let scenarioDevices: [String: (patient: String, device: String)]
    /// Wire identities by scenario `patient/device`, so renamed readings share them.
    let identities: [String: DeviceIdentity]

    /// Ids unchanged: the scenario's own.
    package static let identity = WireNaming(
        patients: [:],
        scenarioPatients: [:],
        devices: [:],
        scenarioDevices: [:],
        identities: [:]
    )

    /// True when no id is renamed.
    package var isIdentity: Bool { patients.isEmpty && devices.isEmpty }

    init(
        patients: [String: String],
        scenarioPatients: [String: String],
        devices: [String: String],
        scenarioDevices: [String: (patient: String, device: String)],
        identities: [String: DeviceIdentity]
    ) {
        self.patients = patients
        self.scenarioPatients = scenarioPatients
        self.devices = devices
        self.scenarioDevices = scenarioDevices
        self.identities = identities
    }

    /// The naming of `scenario`'s patients and devices by the templates (`{run}`, `{scenario}`,
    /// `{patient}`, `{device}`); nil templates keep the scenario's ids.
    /// - Throws: ``WireNamingError`` when two patients (or two devices of one patient) would share a
    ///   wire id, or an id would contain `/` (reading ids are `PATIENT/DEVICE/SEQ`).
    package init(
        patientTemplate: String?,
        deviceTemplate: String?,
        run: String,
        scenario: Scenario
    ) throws(WireNamingError) {
        guard patientTemplate != nil || deviceTemplate != nil else {
            self = .identity
            return
        }
        let scenarioName = WireNaming.idSafe(scenario.name)
        func fill(_ template: String, patient: String, device: String = "") -> String {
            template.replacingOccurrences(of: "{run}", with: run)
                .replacingOccurrences(of: "{scenario}", with: scenarioName)
                .replacingOccurrences(of: "{patient}", with: patient)
                .replacingOccurrences(of: "{device}", with: device)
        }
        var patients: [String: String] = [:]
        var back: [String: String] = [:]
        var devices: [String: String] = [:]
        var deviceBack: [String: (patient: String, device: String)] = [:]
        var identities: [String: DeviceIdentity] = [:]
        for p in scenario.patients {
            let wire = patientTemplate.map { fill($0, patient: p.id) } ?? p.id
            guard !wire.contains("/") else { throw .slash(wire, of: "patient \(p.id)") }
            if let other = back[wire] { throw .shared(wire, "patients \(other) and \(p.id)") }
            patients[p.id] = wire
            back[wire] = p.id
            for d in p.devices {
                let wireDevice = deviceTemplate.map { fill($0, patient: p.id, device: d.id) } ?? d.id
                guard !wireDevice.contains("/") else {
                    throw .slash(wireDevice, of: "device \(d.id) of patient \(p.id)")
                }
                let key = wire + "/" + wireDevice
                if let other = deviceBack[key] {
                    throw .shared(wireDevice, "devices \(other.device) and \(d.id) of patient \(p.id)")
                }
                devices[p.id + "/" + d.id] = wireDevice
                deviceBack[key] = (p.id, d.id)
                identities[p.id + "/" + d.id] = DeviceIdentity(
                    patientID: wire,
                    deviceID: wireDevice,
                    deviceType: d.type
                )
            }
        }
        self.init(
            patients: patients,
            scenarioPatients: back,
            devices: devices,
            scenarioDevices: deviceBack,
            identities: identities
        )
    }

    /// `name` with every character outside `A–Z a–z 0–9 . -` replaced by `-` (FHIR's id alphabet).
    package static func idSafe(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "-" })
    }

    /// The wire id of a scenario patient.
    package func patient(_ id: String) -> String { patients[id] ?? id }

    /// The wire id of a scenario patient's device.
    package func device(_ id: String, of patient: String) -> String {
        devices.isEmpty ? id : devices[patient + "/" + id] ?? id
    }

    /// Reading `r` under its wire ids (its reading id follows them).
    package func wire(_ reading: Reading) -> Reading {
        guard !identities.isEmpty, let source = identities[reading.patientID + "/" + reading.deviceID] else {
            return reading
        }
        return Reading(
            source: source,
            secondary: reading.secondary,
            seq: reading.seq,
            measuredAt: reading.measuredAt,
            deviceTime: reading.deviceTime,
            intendedEmitTime: reading.intendedEmitTime,
            measurement: reading.measurement,
            truth: reading.truth,
            delivery: reading.delivery
        )
    }

    /// The scenario id of a wire patient id; nil for a patient that is not the run's. With no
    /// patient renaming every id is the run's.
    package func scenarioPatient(_ wire: String) -> String? {
        patients.isEmpty ? wire : scenarioPatients[wire]
    }

    /// The scenario id of a wire device id of a scenario patient.
    package func scenarioDevice(_ wire: String, of patient: String) -> String {
        isIdentity ? wire : scenarioDevices[self.patient(patient) + "/" + wire]?.device ?? wire
    }

    /// The scenario reading id of a wire reading id (`PATIENT/DEVICE/…`, or `PATIENT/…` of an id the
    /// SUT derives); unchanged when its patient is not the run's.
    package func scenarioReadingID(_ wire: String) -> String {
        guard !isIdentity else { return wire }
        let parts = wire.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return wire }
        if let device = scenarioDevices[parts[0] + "/" + parts[1]] {
            return device.patient + "/" + device.device + "/" + parts[2]
        }
        // An id the SUT makes of the patient's alone (VitalEdge: `USER/iot-heart-rate/TIME`).
        guard let patient = scenarioPatients[String(parts[0])] else { return wire }
        return patient + "/" + parts[1] + "/" + parts[2]
    }
}

/// Why a scenario's ids cannot be renamed as the SUT profile's `lifecycle` asks.
package enum WireNamingError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A wire id would contain `/`.
    case slash(String, of: String)
    /// Two patients, or two devices of a patient, would share a wire id.
    case shared(String, String)

    package var description: String {
        switch self {
        case let .slash(id, of):
            "lifecycle: the SUT's id of \(of) would be '\(id)', which contains '/' (reading ids are PATIENT/DEVICE/SEQ)"
        case let .shared(id, what):
            "lifecycle: \(what) would both be '\(id)' at the SUT; put {patient} (or {device}) in the id template"
        }
    }
}
