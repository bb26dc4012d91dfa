import Foundation
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    /// `audit:`: `url` (a path or URL, `{patient}` optional), `list`, `fields: {who, patient, action,
    /// recorded}`, `time-format`, `read-actions` (the action values that mean a read).
    func audit(_ node: Node) -> AuditSource? {
        let keys = ["url", "list", "fields", "time-format", "read-actions"]
        guard let f = reader.mapping(node, "audit", allowed: keys, required: ["url", "fields"]),
            let url = f.string("url")
        else { return nil }
        guard url.hasPrefix("/") || isHTTPURL(url) else {
            fail(f, "url", "expected an http(s):// URL or a path on the SUT's base URL")
            return nil
        }
        for name in placeholders(url) where name != "patient" {
            fail(f, "url", "unknown placeholder {\(name)}; valid: {patient}")
        }
        let list = f.has("list") ? pointer(f, "list") : JSONPointer.root
        let names = ["who", "patient", "action", "recorded"]
        guard let fieldsNode = f.value("fields"),
            let fields = reader.mapping(fieldsNode, f.path("fields"), allowed: names, required: names),
            let whoNode = fields.value("who"), let who = fieldSpec(whoNode, fields.path("who")),
            let patientNode = fields.value("patient"), let patient = fieldSpec(patientNode, fields.path("patient")),
            let actionNode = fields.value("action"), let action = fieldSpec(actionNode, fields.path("action")),
            let atNode = fields.value("recorded"), let at = fieldSpec(atNode, fields.path("recorded")), let list
        else { return nil }
        var source = AuditSource(url: url, list: list, who: who, patient: patient, action: action, at: at)
        if f.has("time-format") {
            source.timeFormat = f.choice("time-format", AlertFields.TimeFormat.self, what: "time format") ?? .rfc3339
        }
        if let reads = f.list("read-actions") {
            var values: Set<String> = []
            for (i, item) in reads.enumerated() {
                guard let text = item.scalar?.string, !text.isEmpty else {
                    reader.fail(
                        item,
                        f.path("read-actions") + "[\(i)]",
                        "expected the text of a read action, such as R"
                    )
                    continue
                }
                values.insert(text)
            }
            if values.isEmpty, reader.issues.isEmpty { fail(f, "read-actions", "name at least one read action") }
            source.readActions = values
        }
        return source
    }
}
