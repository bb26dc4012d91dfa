import Bluetooth
import Crypto
import Foundation
import Judge
import VitalSimCore
import Yams

/// The requirements a backend is tested against (docs/requirements.md): the hand-written entries of
/// `requirements.yaml` (the source documents' requirements and VitalSim's contract) and the entries
/// generated from the sources of truth, so that they cannot drift — one per shipped alert rule, two
/// per reading kind, one per GATT characteristic VitalSim encodes.
package struct RequirementCatalogue: Sendable {
    /// Every requirement, in catalogue order: hand-written, kinds, rules, GATT characteristics.
    package let requirements: [Requirement]
    /// The first 16 hex digits of the SHA-256 of the catalogue's entries: evidence bundles name it.
    package let version: String

    /// What is wrong with the catalogue's sources, each with its file, line and field.
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// The catalogue of the shipped `requirements.yaml` and `rules` (the shipped rules in words).
    package static func shipped(rules: [RuleDescription]) throws(Problem) -> RequirementCatalogue {
        guard let url = Bundle.module.url(forResource: "requirements", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { throw Problem(description: "requirements.yaml is missing from the build") }
        return try build(text, file: "Sources/Requirements/Catalogue/requirements.yaml", rules: rules)
    }

    /// The catalogue of a `requirements.yaml` text and the rules; every problem named with
    /// `file:line:column` and the field.
    package static func build(
        _ text: String,
        file: String,
        rules: [RuleDescription]
    ) throws(Problem)
        -> RequirementCatalogue
    {
        let reader = YAMLReader(file: file)
        let root: Node
        do { root = try ScenarioLoader.compose(text, file: file) } catch {
            throw Problem(description: error.issues.map(\.description).joined(separator: "\n"))
        }
        var entries: [Requirement] = []
        if let top = reader.mapping(
            root,
            "",
            allowed: ["requirements", "kinds", "services", "ble-link"],
            required: ["requirements", "kinds", "services", "ble-link"]
        ) {
            entries += written(top, reader)
            entries += kinds(top, reader)
            entries += rules.map(ruleRequirement)
            entries += gatt(top, reader)
        }
        // A hand-written id that a generated entry also has (duplicates within the file are named at their line).
        var seen: Set<String> = []
        for entry in entries where !seen.insert(entry.id).inserted && entry.origin != .catalogue {
            reader.failAt(
                line: 1,
                column: 1,
                "requirements",
                "the id '\(entry.id)' is generated: do not write it by hand"
            )
        }
        guard reader.issues.isEmpty else {
            throw Problem(description: reader.reportedIssues.map(\.description).joined(separator: "\n"))
        }
        return RequirementCatalogue(requirements: entries, version: version(of: entries))
    }

    /// The requirement with `id`, if the catalogue has it.
    package func requirement(_ id: String) -> Requirement? { requirements.first { $0.id == id } }

    /// The hand-written entries (`requirements:`).
    static func written(_ top: Fields, _ reader: YAMLReader) -> [Requirement] {
        var out: [Requirement] = []
        var lines: [String: Int] = [:]
        for (i, node) in (top.list("requirements") ?? []).enumerated() {
            let field = "requirements[\(i)]"
            guard
                let entry = reader.mapping(
                    node,
                    field,
                    allowed: ["id", "level", "area", "source", "text", "applies"],
                    required: ["id", "level", "area", "source", "text"]
                ),
                let id = entry.string("id"), let level = entry.choice("level", RequirementLevel.self, what: "level"),
                let area = entry.choice("area", Area.self, what: "area"), let source = entry.string("source"),
                let text = entry.string("text")
            else { continue }
            if id.contains(where: { $0 == " " || $0.isUppercase }) {
                reader.fail(entry.value("id"), field + ".id", "an id is lower case without spaces, got '\(id)'")
            }
            if let first = lines[id] {
                reader.fail(entry.value("id"), field + ".id", "the id '\(id)' is given twice (first at line \(first))")
            }
            lines[id] = lines[id] ?? (entry.value("id")?.mark?.line ?? 0)
            var requirement = Requirement(
                id: id,
                level: level,
                area: area.rawValue,
                source: source,
                text: text,
                origin: .catalogue
            )
            if entry.has("applies") {
                requirement.applies =
                    entry.choice("applies", Requirement.Applicability.self, what: "applicability") ?? .always
            }
            out.append(requirement)
        }
        return out
    }

    /// Two entries per reading kind (`kinds:` must name each kind, and no other).
    static func kinds(_ top: Fields, _ reader: YAMLReader) -> [Requirement] {
        guard let node = top.value("kinds"), let mapping = node.mapping else {
            reader.fail(top.value("kinds"), "kinds", "expected a mapping of reading kinds")
            return []
        }
        var given: [String: (level: RequirementLevel, source: String)] = [:]
        for (key, value) in mapping {
            let name = key.scalar?.string ?? ""
            let field = "kinds.\(name)"
            guard VitalKind(rawValue: name) != nil else {
                let near = YAMLReader.nearest(name, in: VitalKind.allCases.map(\.rawValue))
                reader.fail(
                    key,
                    field,
                    "unknown reading kind '\(name)'" + (near.map { " (did you mean '\($0)'?)" } ?? "")
                )
                continue
            }
            guard
                let entry = reader.mapping(value, field, allowed: ["level", "source"], required: ["level", "source"]),
                let level = entry.choice("level", RequirementLevel.self, what: "level"),
                let source = entry.string("source")
            else { continue }
            given[name] = (level, source)
        }
        var out: [Requirement] = []
        for kind in VitalKind.allCases {
            guard let (level, source) = given[kind.rawValue] else {
                reader.fail(node, "kinds", "the reading kind '\(kind.rawValue)' has no entry: every kind needs one")
                continue
            }
            out.append(
                Requirement(
                    id: "ingest.\(kind.rawValue).accept",
                    level: level,
                    area: "payloads",
                    source: source,
                    text: "A valid \(kind.rawValue) reading is accepted (2xx, or confirmed over MQTT) and stored.",
                    origin: .kind
                )
            )
            out.append(
                Requirement(
                    id: "ingest.\(kind.rawValue).refuse",
                    level: level,
                    area: "errors",
                    source: source,
                    text: "Each invalid form of a \(kind.rawValue) reading its format has is refused with 400.",
                    origin: .kind
                )
            )
        }
        return out
    }

    /// The entry of a shipped alert rule.
    static func ruleRequirement(_ rule: RuleDescription) -> Requirement {
        var text = "Raise \(rule.id) (\(rule.severity)) when \(rule.condition)"
        if let persistence = rule.persistence { text += ", held for \(persistence)" }
        text += "; profiles \(rule.profiles.joined(separator: ", "))."
        return Requirement(
            id: "rule." + rule.id,
            level: .shall,
            area: "alerts",
            source: rule.source,
            text: text,
            origin: .rule,
            rule: rule
        )
    }

    /// One entry per characteristic of the GATT registry, with its service's specification (`services:`).
    static func gatt(_ top: Fields, _ reader: YAMLReader) -> [Requirement] {
        guard let node = top.value("services"), let mapping = node.mapping else {
            reader.fail(top.value("services"), "services", "expected a mapping of GATT services to specifications")
            return []
        }
        var specifications: [String: String] = [:]
        for (key, value) in mapping {
            let name = key.scalar?.string ?? ""
            guard let text = value.scalar?.string, !text.isEmpty else {
                reader.fail(value, "services.\(name)", "expected the service's specification")
                continue
            }
            specifications[name] = text
        }
        let overLink = bleLinkCharacteristics(top, reader)
        var out: [Requirement] = []
        for characteristic in CharacteristicRegistry.all {
            let uuid = characteristic.uuidString
            guard let service = GATTServices.byCharacteristic[characteristic.uuid],
                let specification = specifications[service]
            else {
                reader.fail(node, "services", "no specification for characteristic \(characteristic.name) (\(uuid))")
                continue
            }
            var requirement = Requirement(
                id: "gatt." + uuid,
                level: .shall,
                area: "gatt",
                source: specification,
                text: "\(characteristic.name) (\(uuid)) values are read as the specification lays them out, "
                    + "field by field and little-endian; malformed values are refused.",
                origin: .gatt
            )
            if let level = overLink[uuid] {
                requirement.level = level
                requirement.applies = .bleLink
                requirement.text =
                    level == .shall
                    ? "\(characteristic.name) (\(uuid)), served over a BLE link, is used as the specification lays it "
                        + "out, so that every reading is collected (notifications enabled, stored records requested, "
                        + "their times read)."
                    : "\(characteristic.name) (\(uuid)), served over a BLE link, is read or written as the specification "
                        + "lays it out by a collector that uses it (features, status, control points, interim values)."
            }
            out.append(requirement)
        }
        return out
    }

    /// `ble-link:`: the characteristics a device serves only over a live BLE link (a hub relays
    /// measurement values alone), each list by level (`shall:`, `should:`), as `0x2A52` ids.
    static func bleLinkCharacteristics(_ top: Fields, _ reader: YAMLReader) -> [String: RequirementLevel] {
        guard let node = top.value("ble-link"),
            let lists = reader.mapping(node, "ble-link", allowed: ["shall", "should"], required: ["shall", "should"])
        else { return [:] }
        let known = Set(CharacteristicRegistry.all.map { $0.uuidString })
        var out: [String: RequirementLevel] = [:]
        for (key, level) in [("shall", RequirementLevel.shall), ("should", .should)] {
            for (i, item) in (lists.list(key) ?? []).enumerated() {
                let uuid = item.scalar?.string ?? ""
                guard known.contains(uuid) else {
                    reader.fail(item, "ble-link.\(key)[\(i)]", "'\(uuid)' is not a characteristic VitalSim encodes")
                    continue
                }
                out[uuid] = level
            }
        }
        return out
    }

    /// The catalogue's version: a digest of every entry's id, level, source and text.
    static func version(of entries: [Requirement]) -> String {
        var hash = SHA256()
        for e in entries {
            hash.update(data: Data("\(e.id)\u{1F}\(e.level.rawValue)\u{1F}\(e.source)\u{1F}\(e.text)\u{1E}".utf8))
        }
        return hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The areas a hand-written requirement may be about.
    enum Area: String, CaseIterable {
        case endpoints, payloads, cadence, errors, alerts, queries, latency, access, devices, gatt, harness
    }
}
