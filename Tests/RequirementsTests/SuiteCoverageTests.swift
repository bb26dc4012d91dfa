import Foundation
import Judge
import ReferenceEngine
import Requirements
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// `vitalsim coverage`: what shipped scenarios exercise of the catalogue, traced as their verdicts'
/// checks are, and what none does.
@Suite struct SuiteCoverageTests {
    static func coverage(
        _ names: [String],
        modes: Set<Requirement.Applicability> = []
    ) throws -> SuiteCoverage {
        var coverage = SuiteCoverage(catalogue: try RequirementCatalogueTests.shipped(), modes: modes)
        for name in names {
            let scenario = try TracedScenarioLoader.load(path: Fixtures.repositoryRoot + "/scenarios/core/\(name).yaml")
            let path = Fixtures.repositoryRoot + "/" + scenario.golden
            let golden = try GoldenFile.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
            coverage.add(scenario, golden: golden)
        }
        return coverage
    }

    @Test func scenariosExerciseTheirRulesKindsAndEndpoints() throws {
        let coverage = try Self.coverage([
            "fever-spike", "vitaledge-daily-summary", "vitaledge-month-end", "copd-desaturation",
        ])
        #expect(
            coverage.scenarios == [
                "fever-spike", "vitaledge-daily-summary", "vitaledge-month-end", "copd-desaturation",
            ]
        )
        #expect(coverage.unknownIDs.isEmpty)
        #expect(
            coverage.exercised["rule.temp.fever"]?.first
                == .init(scenario: "fever-spike", how: "alert temp.fever patient 508")
        )
        // A valid daily summary: only the month-end scenario sends one.
        #expect(coverage.exercised["ingest.daily-summary.accept"]?.map(\.scenario) == ["vitaledge-month-end"])
        #expect(coverage.exercised["vitaledge.summary-endpoint"]?.map(\.scenario) == ["vitaledge-month-end"])
        #expect(
            Set(coverage.exercised["ingest.daily-summary.refuse"]?.map(\.scenario) ?? []) == [
                "vitaledge-daily-summary", "vitaledge-month-end",
            ]
        )
        #expect(
            coverage.exercised["vitaledge.summary-invalid"]?.map(\.scenario) == [
                "vitaledge-daily-summary", "vitaledge-month-end",
            ]
        )
        // Raw GATT values relayed over MQTT by the COPD hub: the oximeter's continuous measurement.
        #expect(coverage.exercised["gatt.0x2A5F"]?.map(\.scenario) == ["copd-desaturation"])
        #expect(coverage.exercised["ingest.mqtt-confirmed"]?.map(\.scenario) == ["copd-desaturation"])
        // The phone's repeats and retries (month-end's duplicates and disconnect faults).
        #expect(coverage.exercised["vitaledge.retries"]?.map(\.scenario) == ["vitaledge-month-end"])
        // Every patient's readings are read back by period and kind; nothing checks who may see what.
        #expect(coverage.exercised["query.by-period"]?.contains { $0.scenario == "vitaledge-month-end" } == true)
        #expect(coverage.exercised["query.by-kind"]?.first?.how.hasSuffix("by kind (each kind held)") == true)
        let missing = coverage.uncovered(.shall).map(\.id)
        #expect(missing.contains("alerts.recipients") && missing.contains("access.authorized-only"))
        #expect(!missing.contains("query.by-month") && !missing.contains("store.once"))
        #expect(coverage.percent(.shall) > 0 && coverage.percent(.shall) < 100)
    }

    /// The app's two switches (the VitalEdge RSD §2.3.1): only a phone with one of them off exercises them,
    /// each named with what is off.
    @Test func aPhoneWithASwitchOffExercisesTheToggles() throws {
        #expect(try Self.coverage(["vitaledge-month-end"]).exercised["vitaledge.toggles"] == nil)
        let coverage = try Self.coverage(["vitaledge-settings"])
        #expect(
            coverage.exercised["vitaledge.toggles"]?.map(\.how) == [
                "phone-503 with real-time monitoring off: its stored readings and the alerts judged",
                "phone-504 with daily summary off: its stored readings and the alerts judged",
            ]
        )
        // 503's summary is accepted; 504's heart rates and its tachycardia alert.
        #expect(coverage.exercised["ingest.daily-summary.accept"]?.map(\.scenario) == ["vitaledge-settings"])
        #expect(coverage.exercised["rule.hr.tachycardia"]?.map(\.how) == ["alert hr.tachycardia patient 504"])
    }

    /// What only a run over a BLE link (or observing push channels) exercises is apart unless the
    /// suite is said to be run so; then the devices that go over the link exercise their services.
    @Test func requirementsOfAnotherModeAreApartUntilTheSuiteIsRunSo() throws {
        let plain = try Self.coverage(["t1d-nocturnal-hypoglycemia", "hypertensive-crisis"])
        #expect(plain.inapplicable(.shall).map(\.id).contains("gatt.0x2A52"))
        #expect(plain.inapplicable(.shall).map(\.id).contains("alerts.pushed"))
        #expect(!plain.uncovered(.shall).contains { $0.applies != .always })
        let text = CoverageDocument.text(plain, suites: ["x"])
        #expect(text.contains("only runs over a BLE link"), "\(text)")
        let linked = try Self.coverage(
            ["t1d-nocturnal-hypoglycemia", "hypertensive-crisis"],
            modes: [.bleLink, .pushChannels]
        )
        // The CGM's and the glucometer's stored records are fetched through the RACP; the cuff serves
        // its features; no device of VitalSim's serves a thermometer's measurement interval.
        #expect(linked.exercised["gatt.0x2A52"]?.map(\.how) == ["served over a BLE link by cgm-504"])
        #expect(linked.exercised["gatt.0x2A21"] == nil)
        #expect(linked.exercised["gatt.0x2A49"]?.first?.scenario == "hypertensive-crisis")
        #expect(linked.exercised["gatt.0x2AA8"]?.first?.how == "served over a BLE link by cgm-504")
        #expect(linked.exercised["ingest.ble-gateway"] != nil && linked.exercised["alerts.pushed"] != nil)
        #expect(linked.exercised["gatt.0x2A5E"] == nil, "no oximeter in these scenarios")
        #expect(linked.inapplicable(.shall).isEmpty)
    }

    /// The seed's 2 s alert latency is covered only by a budget on the maximum of at most 2 s.
    @Test func onlyAMaximumOfTwoSecondsCoversTheSeedsAlertLatency() throws {
        let coverage = try Self.coverage(["fever-spike"])
        let budgets = try GoldenFile.parse(
            try String(contentsOfFile: Fixtures.repositoryRoot + "/golden/fever-spike.golden.yaml", encoding: .utf8),
            file: "fever-spike"
        ).budgets
        let alertMax = budgets.first { $0.path == .readingToAlert }?.limits.first { $0.percentile >= 100 }?.milliseconds
        #expect((coverage.exercised["alerts.latency"] != nil) == ((alertMax ?? .infinity) <= 2000))
    }

    @Test func theDocumentsSayWhatIsUncovered() throws {
        let coverage = try Self.coverage(["fever-spike"])
        let text = CoverageDocument.text(coverage, suites: ["scenarios/core/fever-spike.yaml"])
        #expect(text.contains("uncovered SHALL"), "\(text)")
        #expect(text.contains("  access.authorized-only: "), "\(text)")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(CoverageDocument.json(coverage, suites: ["x"]).utf8))
                as? [String: Any]
        )
        let shall = try #require((json["levels"] as? [String: Any])?["SHALL"] as? [String: Any])
        #expect((shall["uncovered"] as? [String])?.contains("alerts.recipients") == true)
        let html = try CoverageDocument.html(coverage)
        #expect(
            html.contains("<td class=\"hit\" title=\"alert temp.fever patient 508\">✓</td>"),
            "\(html.prefix(2000))"
        )
    }
}
