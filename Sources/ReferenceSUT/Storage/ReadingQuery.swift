import ReferenceEngine
import VitalSimCore

/// A query of one patient's stored readings (read-back): a device-time range, one signal, and a
/// page after a cursor, in commit order.
package struct ReadingQuery: Sendable, Equatable {
    package var patient: String
    /// Device time from (inclusive) and to (exclusive), Unix ms.
    package var from: Int64?
    package var to: Int64?
    /// Only readings carrying this signal (`systolic` for blood pressure).
    package var signal: Signal?
    /// Only readings stored after this cursor (a ``StoredReading/seq``).
    package var after: Int64 = 0
    /// At most this many.
    package var limit: Int

    package init(
        patient: String,
        from: Int64? = nil,
        to: Int64? = nil,
        signal: Signal? = nil,
        after: Int64 = 0,
        limit: Int
    ) {
        self.patient = patient
        self.from = from
        self.to = to
        self.signal = signal
        self.after = after
        self.limit = limit
    }

    /// The `LIKE` pattern of readings carrying ``signal`` (`vals` is `{"signal":value,…}`; a
    /// signal's name holds no LIKE wildcard).
    var pattern: String? { signal.map { "%\"\($0.rawValue)\":%" } }

    /// The SQLite query, with named parameters; an absent bound is NULL and matches everything
    /// (``PostgresStorage`` runs the same with bound values).
    static let selection = """
        SELECT seq, reading_id, patient_id, device_id, device_time, vals, rr FROM readings
        WHERE patient_id = :patient AND seq > :after AND (:from IS NULL OR device_time >= :from)
        AND (:to IS NULL OR device_time < :to) AND (:pattern IS NULL OR vals LIKE :pattern) ORDER BY seq LIMIT :limit
        """
}

/// A stored reading and its place in commit order (the cursor of the next page).
package struct StoredReading: Sendable, Equatable {
    package var seq: Int64
    package var observation: Observation

    package init(seq: Int64, observation: Observation) {
        self.seq = seq
        self.observation = observation
    }
}
