import Foundation
import InProcessSUT
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import TestFixtures
import Testing
import Traffic

/// `vitalsim run --sut PROFILE` against the reference SUT in-process: alerts read in another shape
/// (FHIR DetectedIssue Bundles, paged), names mapped (an unmapped one its own finding), readings in
/// FHIR transaction Bundles, template routes, alerts without evidence, an IoT endpoint given as a
/// URL, per-device credentials — each judged as the reference contract is, and each profile
/// mistake ending the run unjudged (exit 3), never as clinical findings.
final class InProcessProfileTests {
    let directory = Fixtures.temporaryDirectory("in-process-profile")

    deinit { try? FileManager.default.removeItem(atPath: directory) }
    let crisis = InProcessRun.path("core", "hypertensive-crisis")
    let hypo = InProcessRun.path("core", "t1d-nocturnal-hypoglycemia")

    /// Writes a profile (and the files it names) into the test's folder and loads it.
    func profile(_ text: String, name: String, files: [String: String] = [:]) throws -> SUTProfile {
        try InProcessRun.profile(text, name: name, in: directory, files: files)
    }

    /// Runs `scenario` through `profile` against the in-process reference SUT.
    func run(
        _ scenario: String,
        _ profile: SUTProfile,
        faults: [String] = [],
        sut: (inout InProcessSUT) throws -> Void = { _ in }
    ) async throws -> Verdict {
        try await InProcessRun.verdict(scenario, faults: faults, sut: sut, options: { $0.target.profile = profile })
    }

    /// The reference SUT's alerts as FHIR DetectedIssues, two per page.
    static let fhirAlerts = """
        alerts:
          url: /fhir/DetectedIssue?_count=2
          list: /entry/*/resource
          paging: fhir-bundle
          fields:
            id: /id
            patient: {pointer: /patient/reference, strip-prefix: Patient/}
            rule: /code/coding/0/code
            severity: /severity
            raised-at: /identifiedDateTime
            evidence: {pointer: /evidence/*/detail/*/reference, strip-prefix: Observation/}
        severities: {high: high, moderate: medium, low: low}
        """

    @Test func alertsReadAsPagedFHIRBundlesJudgeLikeTheContract() async throws {
        let fhir = try profile("name: fhir-alerts\n" + Self.fhirAlerts, name: "fhir.yaml")
        let pass = try await run(hypo, fhir)
        #expect(pass.error == nil)
        #expect(InProcessRun.failures(pass, latency: false) == [])
        // 15 since the next morning's breakfast no longer rises at 2 mg/dL/min (golden/README.md).
        #expect(pass.checks.count == 15)

        // A rules: table that leaves out the SUT's names: each such alert is `unmapped`, never spurious.
        let partial = try profile(
            "name: partial\n" + Self.fhirAlerts + "\nrules:\n  glucose.level2-low: glucose.level2-low\n",
            name: "partial.yaml"
        )
        let unmapped = InProcessRun.failures(try await run(hypo, partial), latency: false)
        #expect(
            unmapped.contains { $0.hasPrefix("unmapped SUT alert 'glucose.urgent-low' patient 504") },
            "\(unmapped)"
        )
        #expect(!unmapped.contains { $0.hasPrefix("spurious") }, "\(unmapped)")

        // A field pointer that finds nothing: not judged, naming the pointer; no missed alerts.
        let wrong = try profile(
            "name: wrong\n" + Self.fhirAlerts.replacingOccurrences(of: "/identifiedDateTime", with: "/identified"),
            name: "wrong.yaml"
        )
        let unread = try await run(crisis, wrong)
        let error = try #require(unread.error)
        #expect(
            error.contains("it has no raisedAt (at /identified)") && error.contains("/fhir/DetectedIssue"),
            "\(error)"
        )
        #expect(InProcessRun.failures(unread) == [])
    }

    /// The shipped fhir-r4 profile: readings in FHIR transaction Bundles, refusals read from
    /// OperationOutcomes and mapped back to the golden files' field names; the reference SUT passes,
    /// and the same SUT accepting invalid payloads fails on exactly those checks.
    @Test func fhirProfileJudgesRejectionsLikeTheContract() async throws {
        let fhir = try SUTProfileLoader.load(path: Fixtures.repositoryRoot + "/profiles/fhir-r4.yaml", environment: [:])
        let corrupt = InProcessRun.path("core", "corrupt-and-duplicate-payloads")
        let pass = try await run(corrupt, fhir)
        #expect(pass.error == nil)
        #expect(InProcessRun.failures(pass, latency: false) == [])
        // 22 expected rejections, each judged by its status and, a check of its own, the field named;
        // the read-back by period (its month and the middle half of the run: by-period of the profile).
        #expect(pass.checks.count == 54)
        #expect(pass.checks.filter { $0.name.contains(" by period ") }.count == 2)
        #expect(pass.checks.filter { $0.kind == .refusedField }.count == 22)
        let accepting = try await run(corrupt, fhir, faults: ["accept-invalid"])
        let faulty = InProcessRun.failures(accepting, latency: false)
        #expect(!faulty.isEmpty)
        #expect(
            faulty.allSatisfy { $0.hasPrefix("validation-mismatch rejects ") },
            "only the corrupted readings fail: \(faulty)"
        )
        // Said in the FHIR backend's terms: the element path, the corruption sent and the body's start.
        let details = accepting.checks.filter { $0.finding != nil }.map(\.detail)
        #expect(
            details.contains {
                $0.contains("naming field 'unit' (Observation.valueQuantity.code in the payload sent), got 201")
                    && $0.contains("; sent: corruption bad-flags, body {\"resourceType\":\"Bundle\"")
            },
            "\(details.prefix(4))"
        )
        let corruptions = Set(details.compactMap { $0.firstMatch(of: /corruption ([a-z-]+)/).map { String($0.1) } })
        #expect(corruptions.count > 1, "each finding names its own corruption: \(corruptions)")
    }

    /// Every reading kind has a FHIR R4 form, so the shipped fhir-r4 profile (one route, no
    /// template) carries an infant's feeds, battery levels and equipment log as Observations that
    /// the reference SUT accepts, and its alerts on them are judged as through the contract.
    @Test(arguments: [("core", "chd-infant-interstage"), ("feeding", "interstage-home-log")])
    func fhirProfileCarriesFeedsBatteryAndEquipment(_ suite: String, _ name: String) async throws {
        let fhir = try SUTProfileLoader.load(path: Fixtures.repositoryRoot + "/profiles/fhir-r4.yaml", environment: [:])
        #expect(fhir.ingestion.routes.routes.count == 1)
        let verdict = try await run(InProcessRun.path(suite, name), fhir)
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        let bundles = verdict.contract?.endpoints.first { $0.name == "POST /fhir" }
        #expect(bundles?.statuses.keys.allSatisfy { $0 < 300 } == true, "\(bundles as Any)")
    }

    /// The InTouch PRD's watch data through the fhir-r4 profile: symptoms as SNOMED CT Observations and ECGs
    /// with their waveform as SampledData; a SUT that misses the ECG's AF fails on that alone.
    @Test func fhirProfileCarriesSymptomsAndECGs() async throws {
        let fhir = try SUTProfileLoader.load(path: Fixtures.repositoryRoot + "/profiles/fhir-r4.yaml", environment: [:])
        let intouch = InProcessRun.path("core", "intouch-palpitations-af")
        let pass = try await run(intouch, fhir)
        #expect(InProcessRun.failures(pass, latency: false) == [])
        let bundles = pass.contract?.endpoints.first { $0.name == "POST /fhir" }
        #expect(bundles?.statuses == [200: 203], "every reading, ECGs and symptoms too, as FHIR: \(bundles as Any)")
        let missed = InProcessRun.failures(
            try await run(intouch, fhir, faults: ["miss-rule=ecg.af-classified"]),
            latency: false
        )
        #expect(missed.contains { $0.hasPrefix("missed alert ecg.af-classified patient 903") }, "\(missed)")
        #expect(!missed.contains { $0.hasPrefix("missed alert symptom") }, "\(missed)")
    }

    /// A Mustache template route carrying the cuff's readings, and a profile whose routes leave a
    /// kind out: not judged, naming the reading.
    @Test func templateRoutesAndAKindNoRouteCarries() async throws {
        let template =
            #"{"readingId": "{{readingId}}", "patientId": "{{patientId}}", "deviceId": "{{deviceId}}", "kind": "{{kind}}", "#
            + #""systolic": {{systolic}}, "diastolic": {{diastolic}}, "unit": "{{unit}}", "timestamp": "{{timestamp}}"}"#
        let routes = """
            ingestion:
              routes:
                - {kinds: [blood-pressure], path: /api/v1/observations, format: template, template: bp.mustache}
            """
        let withHR = try profile(
            "name: tpl\n" + routes
                + "\n    - {kinds: [heart-rate, battery], path: /api/v1/observations, format: vitalsim-observation}\n",
            name: "tpl.yaml",
            files: ["bp.mustache": template]
        )
        let pass = try await run(crisis, withHR)
        #expect(pass.error == nil)
        #expect(InProcessRun.failures(pass, latency: false) == [])

        let partial = try profile(
            "name: partial\n" + routes + "\n",
            name: "partial-routes.yaml",
            files: ["bp.mustache": template]
        )
        let stopped = try await run(crisis, partial)
        #expect(
            stopped.error?.contains("ingestion: no ingestion route of the SUT profile carries") == true,
            "\(stopped.error ?? "")"
        )
        #expect(InProcessRun.failures(stopped) == [])
    }

    /// Alerts that cite no evidence: the evidence check is skipped (never failed) and reading → alert
    /// latency is still measured, from the patient's first request due at the alert's raisedAt.
    @Test func alertsWithoutEvidenceSkipTheEvidenceCheck() async throws {
        let noEvidence = Self.fhirAlerts.replacingOccurrences(
            of: "\n    evidence: {pointer: /evidence/*/detail/*/reference, strip-prefix: Observation/}",
            with: ""
        )
        #expect(!noEvidence.contains("evidence"))
        let verdict = try await run(hypo, try profile("name: no-evidence\n" + noEvidence, name: "noev.yaml"))
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(verdict.checks.contains { $0.kind == .evidence && $0.skipped && $0.detail.hasPrefix("not checked") })
        #expect(verdict.latency[.readingToAlert]?["p50"] != nil, "\(verdict.latency)")
        #expect(RunReport([verdict]).junit.contains("<skipped message=\"not checked"))
    }

    /// The shipped `vitaledge` profile, with the IoT endpoint given as an absolute URL (the seeds
    /// make it a service of its own): the VitalEdge scenario passes; a scenario with other devices
    /// stops naming what the profile cannot carry.
    @Test func vitalEdgeProfileWithItsIoTEndpointAsAURL() async throws {
        let shipped = try String(contentsOfFile: Fixtures.repositoryRoot + "/profiles/vitaledge.yaml", encoding: .utf8)
        let text = shipped.replacingOccurrences(
            of: "      path: /api/iot-heart-rate",
            with: "      path: \(RouterExchange.base)/api/iot-heart-rate"
        )
        #expect(text != shipped, "the IoT path is in the shipped profile")
        let vitaledge = try profile(text, name: "vitaledge.yaml")
        let pass = try await run(InProcessRun.path("core", "vitaledge-daily-summary"), vitaledge)
        #expect(pass.error == nil)
        #expect(InProcessRun.failures(pass, latency: false) == [])
        let other = try await run(crisis, vitaledge)
        #expect(
            other.error?.contains("no ingestion route of the SUT profile carries battery readings of bp-cuff devices")
                == true,
            "\(other.error ?? "")"
        )
    }

    /// The patient's cuff has its own key (sent as X-API-Key), alerts are read with the reader
    /// token; a device the profile's key file does not know stops the run at once, naming it.
    @Test func perDeviceCredentialsAndAReaderToken() async throws {
        let keys = """
            devices:
              - {token: cuff-507-key-0123456789, patient: "507", device: cuff-507}
            readers:
              - {token: reader-key-0123456789ab}
            """
        let keyed = try profile(
            "name: keyed\nauth:\n  devices: {file: keys.yaml, header: 'X-API-Key: {token}'}\n",
            name: "keyed.yaml",
            files: ["keys.yaml": keys]
        )
        let pass = try await run(crisis, keyed, sut: { try $0.loadCredentials(keys) })
        #expect(pass.error == nil)
        #expect(InProcessRun.failures(pass, latency: false) == [])

        let otherKeys =
            "devices:\n  - {token: other-key-0123456789ab, patient: \"507\", device: other}\nreaders:\n  - {token: reader-key-0123456789ab}\n"
        let unknown = try profile(
            "name: keyed\nauth:\n  devices: {file: other-keys.yaml, header: 'X-API-Key: {token}'}\n",
            name: "other.yaml",
            files: ["other-keys.yaml": otherKeys]
        )
        let stopped = try await run(crisis, unknown, sut: { try $0.loadCredentials(keys) })
        let error = try #require(stopped.error)
        #expect(
            error.contains("credentials: ") && error.contains("has no token for patient 507 device cuff-507"),
            "\(error)"
        )
    }

    /// The COPD patient's MQTT devices relayed over HTTP as FHIR by a gateway profile: judged by the
    /// same golden file, nothing left for a broker; a format with no form for a kind its route
    /// carries ends the run unjudged, naming the route and the readings.
    @Test func mqttDevicesRelayedOverHTTPAndAFormatWithoutAFormForACarriedKind() async throws {
        let gateway = try profile(
            """
            name: gateway
            ingestion:
              routes:
                - {device-types: [cgm], kinds: [cgm], transport: mqtt, format: fhir-observation}
                - {device-types: [heart-rate-strap], transport: mqtt, format: gatt, topic: "ble/{patient}/{kind}/{device}"}
                - {device-types: [pulse-oximeter, thermometer], kinds: [spo2, temperature], transport: http, \
            path: /fhir/Observation, format: fhir-observation}
                - {transport: http, path: /api/v1/observations, format: vitalsim-observation}
            """,
            name: "gateway.yaml"
        )
        let copd = InProcessRun.path("core", "copd-desaturation")
        let relayed = try await run(copd, gateway)
        #expect(relayed.error == nil)
        #expect(InProcessRun.failures(relayed, latency: false) == [])
        let endpoints = relayed.contract?.endpoints ?? []
        #expect(
            endpoints.first { $0.name == "POST /fhir/Observation" }?.statuses == [201: 4800],
            "\(endpoints.map(\.summary))"
        )
        #expect(!endpoints.contains { $0.transport == .mqtt }, "nothing left on the broker")

        // VitalEdge JSON has forms only for the phone's heart rate and daily summary.
        let phoneOnly = try profile(
            "name: phone-only\ningestion:\n  routes:\n    - {transport: http, path: /api/iot-heart-rate, format: vitaledge}\n",
            name: "phone-only.yaml"
        )
        let stopped = try await InProcessRun.unjudged(copd, options: { $0.target.profile = phoneOnly })
        #expect(
            stopped?.contains("ingestion route 1 of the SUT profile (POST /api/iot-heart-rate) carries ") == true
                && stopped?.contains("but format vitaledge has no form for them") == true,
            "\(stopped ?? "judged")"
        )
    }
}
