import VitalSimCore

extension Scenario {
    /// The scenario with only some of its patients (a shard's), and the timeline entries of theirs and of
    /// their devices. Each patient's traffic is the one it has in the whole scenario: its physiology is
    /// seeded by its own id, and a request batches one device's readings.
    package func restricted(to ids: Set<String>) -> Scenario {
        var restricted = self
        restricted.patients = patients.filter { ids.contains($0.id) }
        let devices = Set(restricted.patients.flatMap { $0.devices.map(\.id) })
        restricted.timeline = timeline.filter { entry in
            switch entry {
            case .clinical(let event): ids.contains(event.patientID)
            case .fault(let fault): devices.contains(fault.deviceID)
            case .scripted(let recording): devices.contains(recording.deviceID)
            }
        }
        return restricted
    }
}
