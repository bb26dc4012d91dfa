import Foundation
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    /// `stored-readings:`: where each patient's stored readings are read back, and the SUT's counts.
    func storedReadings(_ node: Node) -> StoredReadingsSource? {
        let keys = [
            "url", "list", "paging", "fields", "time-format", "counts", "kinds", "by-period", "by-kind", "kind-names",
            "timeout",
        ]
        guard let f = reader.mapping(node, "stored-readings", allowed: keys, required: ["url", "fields"]) else {
            return nil
        }
        let url = patientURL(f, "url")
        let list = f.has("list") ? pointer(f, "list") : JSONPointer.root
        guard let fieldsNode = f.value("fields"), var fields = storedFields(fieldsNode), let url else { return nil }
        if f.has("time-format") {
            fields.timeFormat = f.choice("time-format", AlertFields.TimeFormat.self, what: "time format") ?? .rfc3339
        }
        var source = StoredReadingsSource(url: url, list: list ?? JSONPointer.root, fields: fields)
        if let pagingNode = f.value("paging") { source.paging = paging(pagingNode, f.path("paging")) }
        if let countsNode = f.value("counts") { source.counts = storedCounts(countsNode) }
        if f.has("kinds") { source.kinds = names(f, "kinds", VitalKind.self, what: "reading kind") }
        if f.has("by-period") { source.byPeriod = queryURL(f, "by-period", placeholders: ["{from}", "{to}"]) }
        if f.has("by-kind") { source.byKind = queryURL(f, "by-kind", placeholders: ["{kind}"]) }
        if let timeout = f.duration("timeout") { source.timeout = Double(timeout.milliseconds) / 1000 }
        if let namesNode = f.value("kind-names") { source.kindNames = kindNames(namesNode, f.path("kind-names")) }
        if f.has("kind-names"), !f.has("by-kind") {
            fail(f, "kind-names", "kind-names needs by-kind, the URL they go in")
        }
        return source
    }

    /// A URL template with `{patient}`: an http(s) URL or a path on the SUT's base URL.
    func patientURL(_ fields: Fields, _ key: String, period: Bool = false) -> String? {
        guard let url = fields.string(key) else { return nil }
        guard url.hasPrefix("/") || isHTTPURL(url) else {
            fail(fields, key, "expected an http(s):// URL or a path on the SUT's base URL")
            return nil
        }
        guard url.contains("{patient}") else {
            fail(fields, key, "the URL must name the patient: put {patient} where the patient's id goes")
            return nil
        }
        if period, !url.contains("{by}") {
            fail(fields, key, "the URL must name the period: put {by} where day or month goes")
            return nil
        }
        return url
    }

    /// A narrowed read-back's URL template: `{patient}` and each of `placeholders` in it.
    func queryURL(_ fields: Fields, _ key: String, placeholders: [String]) -> String? {
        guard let url = patientURL(fields, key) else { return nil }
        let absent = placeholders.filter { !url.contains($0) }
        guard absent.isEmpty else {
            fail(fields, key, "the URL must carry \(absent.joined(separator: " and ")) where the query's value goes")
            return nil
        }
        return url
    }

    /// `kind-names`: VitalSim's reading kinds → the SUT's names in `{kind}`.
    func kindNames(_ node: Node, _ path: String) -> [VitalKind: String] {
        guard let map = stringMap(node, path) else { return [:] }
        var out: [VitalKind: String] = [:]
        for (ours, theirs) in map {
            guard let kind = VitalKind(rawValue: ours) else {
                let valid = VitalKind.allCases.map(\.rawValue).joined(separator: ", ")
                reader.fail(node, path + "." + ours, "'\(ours)' is not a VitalSim reading kind; valid: \(valid)")
                continue
            }
            out[kind] = theirs
        }
        return out
    }

    /// `stored-readings.fields`: `id`, `time`, `values` (required), `units`, `names`.
    func storedFields(_ node: Node) -> StoredReadingsSource.Fields? {
        let keys = ["id", "time", "values", "units", "names"]
        guard let f = reader.mapping(node, "stored-readings.fields", allowed: keys, required: ["time", "values"]) else {
            return nil
        }
        let id = f.value("id").flatMap { fieldSpec($0, f.path("id")) }
        guard let timeNode = f.value("time"), let time = fieldSpec(timeNode, f.path("time")),
            let values = storedValues(f)
        else {
            return nil
        }
        var fields = StoredReadingsSource.Fields(
            id: id,
            time: time,
            values: values,
            units: f.has("units") ? pointer(f, "units") : nil
        )
        if values == .fhir {
            for key in ["units", "names"] where f.has(key) {
                fail(f, key, "a FHIR Observation names its values by LOINC code and its units itself: remove \(key)")
            }
        }
        if let namesNode = f.value("names"), let map = stringMap(namesNode, f.path("names")) {
            var names: [String: Signal] = [:]
            for (theirs, ours) in map {
                guard let signal = Signal(rawValue: ours) else {
                    let valid = Signal.allCases.map(\.rawValue).joined(separator: ", ")
                    reader.fail(
                        namesNode,
                        f.path("names") + "." + theirs,
                        "'\(ours)' is not a VitalSim signal; valid: \(valid)"
                    )
                    continue
                }
                names[theirs] = signal
            }
            fields.names = names
        }
        return fields
    }

    /// `fields.values`: `fhir`, or a JSON Pointer to an object of values by signal name.
    func storedValues(_ fields: Fields) -> StoredReadingsSource.Values? {
        if fields.string("values") == "fhir" { return .fhir }
        return pointer(fields, "values").map { .object($0) }
    }

    /// `stored-readings.counts`: `url` (with `{patient}` and `{by}`), `list`, `period`, `count`.
    func storedCounts(_ node: Node) -> StoredReadingsSource.Counts? {
        let keys = ["url", "list", "period", "count"]
        guard
            let fields = reader.mapping(
                node,
                "stored-readings.counts",
                allowed: keys,
                required: ["url", "period", "count"]
            )
        else {
            return nil
        }
        let url = patientURL(fields, "url", period: true)
        let list = fields.has("list") ? pointer(fields, "list") : JSONPointer.root
        guard let url, let list, let period = pointer(fields, "period"), let count = pointer(fields, "count") else {
            return nil
        }
        return StoredReadingsSource.Counts(url: url, list: list, period: period, count: count)
    }
}
