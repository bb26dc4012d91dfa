/// What the probes of a run's conformance areas observed, each kept under the type of its
/// observation (``StoredReadBack``, ``AccessMatrixObservation``, ``AuditReadBack``, …): an area
/// reads its own with `areas[ItsObservation.self]`, nil when its probe did not run. New areas add
/// their observation type; this store does not change.
package struct AreaObservations: Sendable {
    private var byType: [ObjectIdentifier: any Sendable] = [:]

    package init() {}

    /// The observation of type `Observation`, nil when none was recorded.
    package subscript<Observation: Sendable>(_ type: Observation.Type) -> Observation? {
        get { byType[ObjectIdentifier(type)] as? Observation }
        set { byType[ObjectIdentifier(type)] = newValue }
    }
}

/// The access-control matrix's probes as the SUT answered them.
package struct AccessMatrixObservation: Sendable, Equatable {
    package var probes: [AccessProbe]

    package init(probes: [AccessProbe]) { self.probes = probes }
}

/// What could still be read of each patient once the scenario deleted them.
package struct DeletionObservation: Sendable, Equatable {
    package var reads: [DeletedPatientRead]

    package init(reads: [DeletedPatientRead]) { self.reads = reads }
}
