import Foundation
import Judge
import Mustache
import VitalSimCore

/// The catalogue as documents: Markdown (docs/requirements.md, through a Mustache template) and JSON.
package enum CatalogueDocument {
    /// What can go wrong rendering.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// docs/requirements.md.
    package static func markdown(_ catalogue: RequirementCatalogue) throws(Problem) -> String {
        guard let url = Bundle.module.url(forResource: "requirements.md", withExtension: "mustache"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { throw Problem(description: "requirements.md.mustache is missing from the build") }
        let template: MustacheTemplate
        do { template = try MustacheTemplate(string: text) } catch {
            throw Problem(description: "requirements.md.mustache: \(error)")
        }
        return template.render(context(catalogue))
    }

    /// The template's context: counts, and the entries of each part.
    static func context(_ catalogue: RequirementCatalogue) -> [String: Any] {
        let all = catalogue.requirements
        func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }
        let written: [[String: Any]] = all.filter { $0.origin == .catalogue }.map {
            [
                "id": $0.id, "level": $0.level.rawValue, "area": $0.area, "text": cell($0.text),
                "source": cell($0.source), "applies": $0.applies == .always ? "" : $0.applies.rawValue,
            ]
        }
        let accepts = all.filter { $0.origin == .kind && $0.id.hasSuffix(".accept") }
        let kinds: [[String: Any]] = accepts.map { r in
            let kind = String(r.id.dropFirst("ingest.".count).dropLast(".accept".count))
            return [
                "kind": kind, "accept": r.id, "refuse": "ingest.\(kind).refuse", "level": r.level.rawValue,
                "source": cell(r.source),
            ]
        }
        let rules: [[String: Any]] = all.compactMap { r in
            guard let rule = r.rule else { return nil }
            return [
                "id": r.id, "condition": cell(rule.condition), "persistence": rule.persistence ?? "at once",
                "rearm": rule.rearm ?? "—", "severity": rule.severity,
                "profiles": rule.profiles.joined(separator: ", "),
                "source": cell(rule.source),
            ]
        }
        let gatt: [[String: Any]] = all.filter { $0.origin == .gatt }.map {
            [
                "id": $0.id, "name": String($0.text.prefix { $0 != " " }), "source": cell($0.source),
                "level": $0.level.rawValue, "applies": $0.applies == .always ? "" : $0.applies.rawValue,
            ]
        }
        return [
            "total": all.count, "shall": all.filter { $0.level == .shall }.count,
            "should": all.filter { $0.level == .should }.count, "version": catalogue.version,
            "written": written, "kinds": kinds, "rules": rules, "gatt": gatt,
        ]
    }

    /// The catalogue as JSON: its version and every requirement.
    package static func json(_ catalogue: RequirementCatalogue) -> String {
        let items: [JSONValue] = catalogue.requirements.map { r in
            var fields: [(String, JSONValue)] = [
                ("id", .string(r.id)), ("level", .string(r.level.rawValue)), ("area", .string(r.area)),
                ("origin", .string(r.origin.rawValue)), ("text", .string(r.text)), ("source", .string(r.source)),
                ("applies", .string(r.applies.rawValue)),
            ]
            if let rule = r.rule {
                var ruleFields: [(String, JSONValue)] = [
                    ("condition", .string(rule.condition)), ("severity", .string(rule.severity)),
                    ("profiles", .array(rule.profiles.map { .string($0) })),
                ]
                if let persistence = rule.persistence { ruleFields.append(("persistence", .string(persistence))) }
                if let rearm = rule.rearm { ruleFields.append(("rearm", .string(rearm))) }
                fields.append(("rule", .object(ruleFields)))
            }
            return .object(fields)
        }
        return JSONValue.object([("version", .string(catalogue.version)), ("requirements", .array(items))])
            .serialized() + "\n"
    }
}
