import VitalSimCore

extension Scenario {
    /// The scenario with only some of its patients (a shard's), and the timeline entries of theirs and of
    /// their devices. Each patient's traffic is the one it has in the whole scenario: its physiology is
    /// seeded by its own id, and a request batches one device's readings.
    package func restricted(to ids: Set<String>) -> Scenario {
        var s = self
        s.patients = patients.filter { ids.contains($0.id) }
        let devices = Set(s.patients.flatMap { $0.devices.map(\.id) })
        s.timeline = timeline.filter { entry in
            switch entry {
            case .clinical(let e): ids.contains(e.patientID)
            case .fault(let f): devices.contains(f.deviceID)
            case .scripted(let r): devices.contains(r.deviceID)
            }
        }
        return s
    }
}
