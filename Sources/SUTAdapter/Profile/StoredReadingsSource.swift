import Foundation
import RunRecord
import VitalSimCore

/// Where a SUT's stored readings are read back (`stored-readings:` of a profile) and how an item's
/// fields map to VitalSim's: each patient's readings at ``url`` (`{patient}` standing for the
/// patient's id at the SUT), the list at ``list``, later pages as ``paging`` says; optionally the
/// SUT's own counts per day and month (``counts``).
package struct StoredReadingsSource: Sendable, Equatable {
    /// The readings of one patient: a path on the SUT's base URL or an absolute URL, with `{patient}`.
    package var url: String
    /// Where the list of readings is in an answer (the empty pointer: the answer is the list).
    package var list: JSONPointer
    /// How further pages are found.
    package var paging = AlertSource.Paging.none
    /// Where each field of a reading is.
    package var fields: Fields
    /// The SUT's counts of stored readings per day and month, if it answers such a query.
    package var counts: Counts?
    /// The kinds of reading kept where ``url`` reads (`kinds:`); nil: every kind.
    package var kinds: Set<VitalKind>?
    /// One patient's readings of a device-time period (`by-period:`): like ``url``, with `{from}`
    /// (inclusive) and `{to}` (exclusive) as RFC 3339 UTC times; nil: not asked.
    package var byPeriod: String?
    /// One patient's readings of one kind (`by-kind:`): like ``url``, with `{kind}`; nil: not asked.
    package var byKind: String?
    /// The SUT's name of each kind in `{kind}` (`kind-names:`); a kind not named goes as VitalSim's.
    package var kindNames: [VitalKind: String] = [:]
    /// Seconds one read-back request may take (`timeout:`, default 10): a FHIR search over a
    /// large store may need more.
    package var timeout: Double = 10

    package init(url: String, list: JSONPointer, fields: Fields) {
        self.url = url
        self.list = list
        self.fields = fields
    }

    /// Where the fields of one stored reading are (`stored-readings.fields:`).
    package struct Fields: Sendable, Equatable {
        /// The reading id (the one the harness sent); nil when the SUT shows none (readings are then
        /// matched by kind and device time).
        package var id: FieldSpec?
        /// The device time the reading was stamped with.
        package var time: FieldSpec
        /// How ``time`` is written.
        package var timeFormat = AlertFields.TimeFormat.rfc3339
        /// Where the values are.
        package var values: Values
        /// An object of UCUM units by signal name; nil: values are in VitalSim's units.
        package var units: JSONPointer?
        /// The SUT's names of signals → VitalSim's (`names:`); without it, VitalSim's names.
        package var names: [String: Signal]?

        package init(id: FieldSpec?, time: FieldSpec, values: Values, units: JSONPointer? = nil) {
            self.id = id
            self.time = time
            self.values = values
            self.units = units
        }
    }

    /// Where a stored reading's values are (`fields.values:`).
    package enum Values: Sendable, Equatable {
        /// An object of values by signal name at this pointer (`{"systolic": 150, "diastolic": 95}`).
        case object(JSONPointer)
        /// A FHIR R4 Observation: `valueQuantity` and each `component`'s, named by their LOINC
        /// codes (``FHIRStoredValues``), in the quantity's UCUM unit.
        case fhir
    }

    /// The SUT's counts (`stored-readings.counts:`): ``url`` with `{patient}` and `{by}` (`day` or
    /// `month`), the list at ``list``, each item a period (`2026-03-02` or `2026-03`) and a count;
    /// items of one period (one per kind) are added up.
    package struct Counts: Sendable, Equatable {
        package var url: String
        package var list: JSONPointer
        package var period: JSONPointer
        package var count: JSONPointer

        package init(url: String, list: JSONPointer, period: JSONPointer, count: JSONPointer) {
            self.url = url
            self.list = list
            self.period = period
            self.count = count
        }
    }

    /// The reference SUT's read-back: `GET /api/v1/patients/{patient}/readings` (`{items, next}`,
    /// cursor `after`) and `…/readings/counts?by=day|month`.
    package static let vitalsim: StoredReadingsSource = {
        func p(_ tokens: String...) -> JSONPointer { JSONPointer(tokens: tokens) }
        var source = StoredReadingsSource(
            url: "/api/v1/patients/{patient}/readings?limit=1000",
            list: p("items"),
            fields: Fields(
                id: FieldSpec(p("readingId")),
                time: FieldSpec(p("timestamp")),
                values: .object(p("values")),
                units: p("units")
            )
        )
        source.paging = .cursor(p("next"), parameter: "after")
        source.byPeriod = "/api/v1/patients/{patient}/readings?from={from}&to={to}&limit=1000"
        source.byKind = "/api/v1/patients/{patient}/readings?kind={kind}&limit=1000"
        source.counts = Counts(
            url: "/api/v1/patients/{patient}/readings/counts?by={by}",
            list: p("counts"),
            period: p("period"),
            count: p("readings")
        )
        return source
    }()

    /// The absolute URL of `template` for a patient (its id at the SUT) and, for counts, a period.
    package static func url(_ template: String, patient: String, by period: String = "", base: String) -> String {
        let id =
            patient.addingPercentEncoding(
                withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))
            ) ?? patient
        let filled = template.replacingOccurrences(of: "{patient}", with: id).replacingOccurrences(
            of: "{by}",
            with: period
        )
        return SUTProfile.resolve(filled, base: base)
    }

    /// The absolute URL of a narrowed read-back of a patient, nil when the profile names no URL for
    /// that query.
    package func url(of query: ReadBackQuery, patient: String, base: String) -> String? {
        let filled: String
        switch query {
        case .period(let from, let to):
            guard let byPeriod else { return nil }
            filled = byPeriod.replacingOccurrences(of: "{from}", with: Self.queryValue(ReadBackQuery.iso(from)))
                .replacingOccurrences(of: "{to}", with: Self.queryValue(ReadBackQuery.iso(to)))
        case .kind(let kind):
            guard let byKind else { return nil }
            filled = byKind.replacingOccurrences(of: "{kind}", with: Self.queryValue(kindNames[kind] ?? kind.rawValue))
        }
        return Self.url(filled, patient: patient, base: base)
    }

    /// A value percent-encoded for a query string (`:` kept; `+`, `&`, `=`, `|`, `#` encoded).
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+&=|#"))
        )
            ?? text
    }

    /// The items of the list in an answer, nil when there is no list where ``list`` points.
    package func items(in document: Any) -> [Any]? {
        list.items(in: document)
    }

    /// One item of a read-back list, as read.
    package enum Item: Sendable {
        /// A stored reading (its id as the SUT wrote it).
        case reading(StoredReading)
        /// Not one of VitalSim's readings (an Observation of a code VitalSim does not send, an
        /// `OperationOutcome` of a searchset): why it was passed over.
        case notAReading(String)
        /// An item that cannot be read, with its id when that much could be (a stored copy of a
        /// reading sent corrupt is one, and not judged as data).
        case unreadable(id: String?, UnreadableAlert)
    }

    /// Reads one item of a read-back list.
    package func read(_ item: Any) -> Item {
        var id: String?
        var values: Result<(values: [Signal: Double], units: [Signal: String]), UnreadableAlert>
        switch fields.values {
        case .fhir:
            switch FHIRStoredValues.read(item) {
            case .success(.notAReading(let why)): return .notAReading(why)
            case .success(.values(let v, let u)): values = .success((v, u))
            case .failure(let problem): values = .failure(problem)
            }
        case .object(let pointer):
            values = objectValues(item, pointer)
        }
        if let spec = fields.id {
            switch spec.text(in: item, name: "id") {
            case .success(let parsed): id = parsed
            case .failure(let problem): return .unreadable(id: nil, problem)
            }
        }
        let time: Int64
        switch fields.time.time(in: item, name: "time", format: fields.timeFormat) {
        case .success(let parsed): time = parsed
        case .failure(let problem): return .unreadable(id: id, problem)
        }
        switch values {
        case .success(let read):
            return .reading(StoredReading(id: id, time: time, values: read.values, units: read.units))
        case .failure(let problem): return .unreadable(id: id, problem)
        }
    }

    /// The values of an object by signal name, and their units from ``Fields/units``.
    func objectValues(
        _ item: Any,
        _ pointer: JSONPointer
    ) -> Result<(values: [Signal: Double], units: [Signal: String]), UnreadableAlert> {
        guard let object = pointer.value(in: item) as? [String: Any] else {
            return .failure(UnreadableAlert(reason: "it has no object of values at \(pointer)"))
        }
        var values: [Signal: Double] = [:]
        for (name, value) in object {
            guard let signal = fields.names.map({ $0[name] }) ?? Signal(rawValue: name) else { continue }
            guard let number = value as? NSNumber, !FieldSpec.isBoolean(number), number.doubleValue.isFinite else {
                return .failure(UnreadableAlert(reason: "its value \(name) '\(FieldSpec.show(value))' is not a number"))
            }
            values[signal] = number.doubleValue
        }
        var units: [Signal: String] = [:]
        if let pointer = fields.units, let object = pointer.value(in: item) as? [String: Any] {
            for (name, value) in object {
                guard let signal = fields.names.map({ $0[name] }) ?? Signal(rawValue: name), let unit = value as? String
                else { continue }
                units[signal] = unit
            }
        }
        return .success((values, units))
    }

    /// The counts of an answer by period, added up over its items; or why they cannot be read.
    package func counted(in document: Any) -> Result<[String: Int], UnreadableAlert> {
        guard let counts else { return .success([:]) }
        guard let items = counts.list.value(in: document) as? [Any] else {
            return .failure(
                UnreadableAlert(reason: "no list of counts at \(counts.list) (stored-readings.counts.list)")
            )
        }
        var out: [String: Int] = [:]
        for item in items {
            guard let period = counts.period.value(in: item).flatMap(FieldSpec.scalarText), !period.isEmpty else {
                return .failure(
                    UnreadableAlert(reason: "an item has no period at \(counts.period): \(FieldSpec.show(item))")
                )
            }
            guard let number = counts.count.value(in: item) as? NSNumber, !FieldSpec.isBoolean(number),
                number.doubleValue == number.doubleValue.rounded()
            else {
                return .failure(UnreadableAlert(reason: "an item of \(period) has no whole count at \(counts.count)"))
            }
            out[period, default: 0] += number.intValue
        }
        return .success(out)
    }
}
