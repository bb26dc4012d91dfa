import RunRecord

extension ReadBackQuery {
    /// Whether a stored reading is one this query asks for: inside the period, or of the kind.
    func selects(_ reading: StoredReading) -> Bool {
        switch self {
        case .period(let from, let to): reading.time >= from && reading.time < to
        case .kind(let kind): reading.values.readingKind == kind
        }
    }

    /// Whether a reading lies within the read-back's time tolerance of the period's bounds, where a
    /// SUT's rounding of device time may put it either side: neither required nor forbidden.
    func isOnEdge(_ reading: StoredReading) -> Bool {
        guard case .period(let from, let to) = self else { return false }
        let tolerance = StoredValueRules.timeTolerance
        return abs(reading.time - from) <= tolerance || abs(reading.time - to) <= tolerance
    }
}
