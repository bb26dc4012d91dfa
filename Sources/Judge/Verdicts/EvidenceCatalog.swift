import RunRecord
import Traffic
import VitalSimCore

/// What the judge knows of the readings that the SUT's alerts cite as evidence: whose they are, what
/// they measure, their device time and how the SUT answered them. Built after a run from the scenario
/// (regenerated with the run's seed: the traffic digest proves it is what was sent) for the cited ids
/// only, so a long run keeps no per-reading table.
package struct EvidenceCatalog: Sendable {
    /// A reading the harness generated.
    package struct Entry: Sendable, Equatable {
        package var patientID: String
        /// The signals it delivers (empty for readings no rule reads).
        package var signals: Set<Signal>
        /// Its device time stamp, Unix ms.
        package var time: Int64
        /// The SUT's answer: 2xx accepted (by any request that carried it), a 4xx rejected, nil never
        /// delivered (not sent, or no final answer).
        package var status: Int?

        package init(patientID: String, signals: Set<Signal>, time: Int64, status: Int?) {
            self.patientID = patientID
            self.signals = signals
            self.time = time
            self.status = status
        }
    }

    /// Cited readings the harness generated, by id.
    package var readings: [String: Entry]
    /// `patient/device` of the devices carried over a live BLE link (`--ble hci`): the SUT's gateway
    /// names their readings itself, so a cited id under such a prefix is checked for its patient only.
    package var linkedDevices: Set<String>
    /// Patients with a device whose payloads carry no reading id (a VitalEdge phone bridge): the SUT
    /// names those readings itself, so an id the harness does not know is accepted for them.
    package var selfNamingPatients: Set<String>

    package init(readings: [String: Entry], linkedDevices: Set<String> = [], selfNamingPatients: Set<String> = []) {
        self.readings = readings
        self.linkedDevices = linkedDevices
        self.selfNamingPatients = selfNamingPatients
    }

    /// The cited readings of a run: `ids` looked up in the scenario's readings, each with the best
    /// answer any request carrying it got (`sent[i]` answered by `outcomes[i]`).
    package init(
        scenario: Scenario,
        seed: UInt64?,
        citing ids: Set<String>,
        sent: [SentRequest],
        outcomes: [RequestOutcome],
        bleLink: Bool
    ) {
        var readings: [String: Entry] = [:]
        let statuses = Self.statuses(of: ids, sent: sent, outcomes: outcomes)
        // Only the patients an id names (`PATIENT/DEVICE/N`) are regenerated, one at a time.
        var cited: [String: Set<String>] = [:]
        let patientIDs = Set(scenario.patients.map(\.id))
        for id in ids {
            if let patient = Self.patient(of: id, among: patientIDs) { cited[patient, default: []].insert(id) }
        }
        PatientRuns.readings(cited, of: scenario, seed: seed) { r in
            readings[r.id] = Entry(
                patientID: r.patientID,
                signals: Oracle.signalSet(r.measurement),
                time: scenario.startUnixMilliseconds + r.deviceTime,
                status: statuses[r.id]
            )
        }
        let linked = bleLink ? scenario.bleDevices.map { "\($0.0)/\($0.1.id)" } : []
        let selfNaming = scenario.patients.filter { $0.devices.contains { $0.type == .phoneBridge } }.map(\.id)
        self.init(readings: readings, linkedDevices: Set(linked), selfNamingPatients: Set(selfNaming))
    }

    /// The patient of the scenario a reading id (`PATIENT/DEVICE/N`; a patient id holds no `/`)
    /// names, nil for an id of no patient of it.
    static func patient(of id: String, among patients: Set<String>) -> String? {
        guard let slash = id.firstIndex(of: "/") else { return nil }
        let prefix = String(id[..<slash])
        return patients.contains(prefix) ? prefix : nil
    }

    /// The answer each id got: a 2xx when any request carrying it was accepted, else its first
    /// final answer; ids never answered are absent.
    package static func statuses(of ids: Set<String>, sent: [SentRequest], outcomes: [RequestOutcome]) -> [String: Int]
    {
        SentRequest.carriers(of: ids, in: sent).compactMapValues { carriers in
            let answers = carriers.compactMap { $0 < outcomes.count ? outcomes[$0].status : nil }
            return answers.first { (200..<300).contains($0) } ?? answers.first
        }
    }

    /// The `patient/device` prefix of a reading id (its first two components), if it has one.
    static func device(of id: String) -> String? {
        let parts = id.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 3 ? "\(parts[0])/\(parts[1])" : nil
    }
}
