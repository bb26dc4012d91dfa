import Bluetooth
import Foundation
import Judge
import ReferenceEngine
import Requirements
import TestFixtures
import Testing
import VitalSimCore

/// The requirements catalogue: built from its sources without drifting from them, every id a check
/// can name in it, docs/requirements.md as generated, and mistakes in its file named.
@Suite struct RequirementCatalogueTests {
    static func rules() throws -> [RuleDescription] { try RuleSetLoader.defaultRules().map(\.catalogueDescription) }
    static func shipped() throws -> RequirementCatalogue { try RequirementCatalogue.shipped(rules: rules()) }

    @Test func theCatalogueCoversEveryRuleKindAndCharacteristic() throws {
        let catalogue = try Self.shipped()
        let ids = catalogue.requirements.map(\.id)
        #expect(Set(ids).count == ids.count, "ids are unique")
        for rule in try RuleSetLoader.defaultRules() {
            let entry = try #require(catalogue.requirement("rule." + rule.id), "rule \(rule.id)")
            #expect(
                entry.level == .shall && entry.source == rule.source && entry.rule?.severity == rule.severity.rawValue
            )
        }
        for kind in VitalKind.allCases {
            #expect(catalogue.requirement("ingest.\(kind.rawValue).accept") != nil, "\(kind)")
            #expect(catalogue.requirement("ingest.\(kind.rawValue).refuse") != nil, "\(kind)")
        }
        for characteristic in CharacteristicRegistry.all {
            #expect(catalogue.requirement("gatt." + characteristic.uuidString)?.source.isEmpty == false)
        }
        let tachycardia = try #require(catalogue.requirement("rule.hr.tachycardia")?.rule)
        #expect(tachycardia.condition == "heart-rate > 100" && tachycardia.persistence == "10m")
        #expect(tachycardia.rearm == "5" && tachycardia.profiles == ["adult", "diabetic-cgm", "copd"])
        #expect(catalogue.requirement("alerts.latency")?.level == .should)
        #expect(catalogue.version.count == 16)
    }

    /// Every id the judge can give a check is one of the catalogue's.
    @Test func everyIdAChecksNamesIsInTheCatalogue() throws {
        let catalogue = try Self.shipped()
        var names: [(CheckKind, String, String?)] = [
            (.noOtherAlerts, "no other alerts", nil), (.evidence, "alert evidence", nil),
            (.validation, "rejects 1/d/9", nil), (.validation, "accepts 1/d", nil),
            (.refusedField, "rejects 1/d/9 naming its field", nil), (.traffic, "traffic digest", nil),
            (.waiver, "waiver of x unexpired", nil), (.delivery, "every reading acknowledged or rejected", nil),
            (.delivery, "every MQTT reading reached the SUT", nil),
            (.delivery, "every BLE reading sent to a subscribed central", nil),
            (.delivery, "alerts delivered via sse", nil), (.delivery, "readings of unclaimed kinds", nil),
        ]
        for path in LatencyPath.budgetable { names.append((.budget, "budget \(path.rawValue) p99 ≤ 1000 ms", nil)) }
        for suffix in ["kept", "unaltered", "held once"] {
            names.append((.storedData, "stored readings of patient 1 \(suffix)", nil))
        }
        names.append((.storedData, "stored reading counts of patient 1 per day and month", nil))
        names += [
            (.storedData, "stored readings of patient 1 by period 2026-03-01T00:00:00Z to 2026-04-01T00:00:00Z", nil),
            (.storedData, "stored readings of patient 1 by kind glucose", nil),
            (.access, "access caregiver ann read-readings patient 2 (not in care)", nil),
            (.access, "access caregiver ann delete patient 1 (in care)", nil),
            (.access, "access caregiver ann expired credential read-readings patient 1 (in care)", nil),
            (.access, "nothing of patient 1 readable after deletion", nil),
            (.audit, "audit trail of caregiver ann", nil),
            (.recipients, "notifies ann of hr.tachycardia patient 1", "hr.tachycardia"),
            (.recipients, "escalates hr.tachycardia patient 1 to bo after 300s", "hr.tachycardia"),
            (.careAction, "ann acknowledges hr.tachycardia patient 1", "hr.tachycardia"),
        ]
        for rule in try RuleSetLoader.defaultRules() {
            names += [
                (.alert, "alert \(rule.id) patient 1", rule.id),
                (.noOtherAlerts, "unexpected alert \(rule.id) patient 1", rule.id),
                (.noOtherAlerts, "duplicate alert \(rule.id) patient 1 #2", rule.id),
                (.evidence, "evidence of alert \(rule.id) patient 1", rule.id),
            ]
        }
        let registry = ConformanceRegistry.standard
        var traced: [String] = []
        for (kind, name, rule) in names {
            traced += registry.requirements(of: Self.check(kind, name, rule: rule), kinds: { _ in [] })
        }
        for kind in VitalKind.allCases {
            for name in ["rejects 1/d/9", "accepts 1/d"] {
                traced += registry.requirements(of: Self.check(.validation, name), kinds: { _ in [kind] })
            }
        }
        let missing = Set(traced).filter { catalogue.requirement($0) == nil }
        #expect(missing.isEmpty, "ids not in the catalogue: \(missing.sorted())")
        #expect(traced.count > names.count, "every check named traces to at least one id")
    }

    /// Every id an area says its checks verify is one of the catalogue's.
    @Test func everyAreasRequirementsAreInTheCatalogue() throws {
        let catalogue = try Self.shipped()
        for area in ConformanceRegistry.standard.areas {
            let missing = area.requirementIDs.filter { catalogue.requirement($0) == nil }
            #expect(missing.isEmpty, "\(area.name): ids not in the catalogue: \(missing)")
        }
    }

    /// A check as its area makes it: the area is the one of the registry that makes checks of its
    /// kind (the deletion area's and the push channels' by their names).
    static func check(_ kind: CheckKind, _ name: String, rule: String? = nil) -> Check {
        var check = Check(kind: kind, name: name, rule: rule, finding: nil, detail: "")
        let areas = ConformanceRegistry.standard.areas.filter { $0.kinds.contains(kind) }
        switch kind {
        case .access:
            check.area = name.hasSuffix(" readable after deletion") ? DeletionArea().name : AccessMatrixArea().name
        case .delivery:
            check.area = name.hasPrefix("alerts delivered via ") ? PushDeliveryArea().name : IngestionArea().name
        default: check.area = areas.first?.name
        }
        return check
    }

    /// docs/requirements.md is what `vitalsim requirements --markdown` writes.
    @Test func theDocumentIsGeneratedFromTheCatalogue() throws {
        let generated = try CatalogueDocument.markdown(try Self.shipped())
        let committed = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/requirements.md", encoding: .utf8)
        #expect(
            committed == generated,
            "docs/requirements.md is out of date: run `vitalsim requirements --markdown > docs/requirements.md`"
        )
        #expect(generated.contains("| `rule.hr.tachycardia` | heart-rate > 100 | 10m | 5 | medium |"))
        #expect(
            generated.contains("| `gatt.0x2A37` | heart-rate-measurement | SHALL |  | Heart Rate Service 1.0 (HRS)")
        )
        #expect(
            generated.contains("| `gatt.0x2A52` | record-access-control-point | SHALL | ble-link | Glucose Service")
        )
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(CatalogueDocument.json(try Self.shipped()).utf8)) as? [String: Any]
        )
        #expect((json["requirements"] as? [Any])?.count == (try Self.shipped()).requirements.count)
    }

    static let minimal = """
        requirements:
          - {id: a.one, level: SHALL, area: alerts, source: "the IoT-AI SRS", text: "one"}
        kinds:
        \(VitalKind.allCases.map { "  \($0.rawValue): {level: SHALL, source: s}" }.joined(separator: "\n"))
        services:
          heart-rate: hrs
          blood-pressure: bls
          glucose: gls
          cgm: cgms
          pulse-oximeter: plxs
          health-thermometer: hts
          weight-scale: wss
          battery: bas
          generic: gatt
        ble-link:
          shall: ["0x2902"]
          should: ["0x2A49"]
        """

    @Test(arguments: [
        ("level: SHALL, area: alerts", "level: MUST, area: alerts", "requirements[0].level", "unknown level 'MUST'"),
        ("area: alerts", "area: alarms", "requirements[0].area", "unknown area 'alarms'"),
        ("id: a.one", "id: A One", "requirements[0].id", "an id is lower case without spaces"),
        (
            "  cgm: {level: SHALL, source: s}\n", "  cgms: {level: SHALL, source: s}\n", "kinds.cgms",
            "did you mean 'cgm'"
        ),
        ("  ecg: {level: SHALL, source: s}\n", "", "kinds", "the reading kind 'ecg' has no entry"),
        ("  battery: bas\n", "", "services", "no specification for characteristic battery-level (0x2A19)"),
        (
            "text: \"one\"}", "text: \"one\"}\n  - {id: a.one, level: SHOULD, area: alerts, source: s, text: t}",
            "requirements[1].id", "the id 'a.one' is given twice (first at line 2)"
        ),
        ("id: a.one", "id: ingest.cgm.accept", "requirements", "is generated: do not write it by hand"),
        ("text: \"one\"}", "text: \"one\", applies: bluetooth}", "requirements[0].applies", "unknown applicability"),
        ("should: [\"0x2A49\"]", "should: [\"0x2A99\"]", "ble-link.should[0]", "'0x2A99' is not a characteristic"),
    ])
    func mistakesAreNamed(_ find: String, _ replace: String, _ field: String, _ message: String) throws {
        let text = Self.minimal.replacingOccurrences(of: find, with: replace)
        #expect(text != Self.minimal, "the mutation applies")
        #expect {
            try RequirementCatalogue.build(text, file: "c.yaml", rules: [])
        } throws: { error in
            let said = "\(error)"
            return said.contains("c.yaml:") && said.contains(field) && said.contains(message)
        }
        _ = try RequirementCatalogue.build(Self.minimal, file: "c.yaml", rules: [])
    }
}
