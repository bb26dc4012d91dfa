import VitalSimCore

/// A reading as the SUT holds it, read back through a SUT profile (`stored-readings:`): its id (the
/// scenario's, mapped back from the SUT's), its device time and its values as the SUT wrote them.
package struct StoredReading: Sendable, Equatable {
    /// The reading id, nil when the SUT does not expose one (the reading is then matched by time).
    package var id: String?
    /// Device time, Unix ms.
    package var time: Int64
    /// Values by VitalSim signal, in the SUT's units.
    package var values: [Signal: Double]
    /// The unit of each value as the SUT names it (UCUM); a signal without one is in VitalSim's unit.
    package var units: [Signal: String]

    package init(id: String?, time: Int64, values: [Signal: Double], units: [Signal: String] = [:]) {
        self.id = id
        self.time = time
        self.values = values
        self.units = units
    }
}

/// What the run read back of the SUT's stored data after the last reading was answered: every
/// stored reading of each patient, and the SUT's own counts per UTC day and month.
package struct StoredReadBack: Sendable, Equatable {
    /// Stored readings by the scenario's patient id.
    package var readings: [String: [StoredReading]] = [:]
    /// The SUT's counts by patient, then period (`2026-03-02` for a day, `2026-03` for a month),
    /// summed over kinds; nil when the profile names no counts query.
    package var counts: [String: [String: Int]]?
    /// Patients the SUT does not know (404 on their read-back).
    package var unknownPatients: Set<String> = []
    /// The kinds of reading the read-back lists (nil: every kind): readings of other kinds are
    /// neither expected there nor judged, though the counts cover every kind.
    package var kinds: Set<VitalKind>?
    /// The SUT's answers to narrowed read-backs (by period, by kind), by the scenario's patient id.
    package var queries: [String: [ReadBackAnswer]] = [:]

    package init() {}
}
