import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore
import XCTest

/// The profile loader: every key parsed, and every mistake an error naming file, line and key.
final class SUTProfileLoaderTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func parse(
        _ text: String,
        environment: [String: String] = [:],
        file: String = "/tmp/p.yaml"
    ) throws(ScenarioLoadError) -> SUTProfile {
        try SUTProfileLoader.parse(text, file: file, environment: environment)
    }

    /// The first error of a profile that must not load.
    func problem(_ text: String, environment: [String: String] = [:]) -> String {
        do throws(ScenarioLoadError) {
            _ = try parse(text, environment: environment)
            return "loaded"
        } catch { return error.description }
    }

    func testShippedVitalSimProfileIsTheBuiltInContract() throws {
        let path = Self.repository.appendingPathComponent("profiles/vitalsim.yaml").path
        let profile = try SUTProfileLoader.load(path: path, environment: [:])
        XCTAssertEqual(profile.name, "vitalsim")
        XCTAssertEqual(profile.alerts, SUTProfile.vitalsim.alerts)
        XCTAssertEqual(profile.mapping, SUTProfile.vitalsim.mapping)
        XCTAssertEqual(profile.storedReadings, SUTProfile.vitalsim.storedReadings)
        XCTAssertNotNil(profile.storedReadings?.counts)
        XCTAssertEqual(profile.careTeam, SUTProfile.vitalsim.careTeam)
        XCTAssertEqual(profile.audit, SUTProfile.vitalsim.audit)
        XCTAssertNil(profile.baseURL)
        XCTAssertNil(profile.auth.devices)
        XCTAssertNil(profile.auth.oauth2)
        XCTAssertEqual(profile.auth.readerHeaders, [])
    }

    func testEveryKeyOfAnOtherShapedBackend() throws {
        let text = """
            name: acme
            base-url: https://127.0.0.1:9443
            tls:
              insecure: true
            auth:
              headers: ["X-Tenant: ${TENANT}"]
              reader: ["Authorization: Bearer ${READER}"]
              oauth2:
                token-url: /oauth/token
                client-id: vitalsim
                client-secret-env: ACME_SECRET
                scope: vitals.write alerts.read
                client-authentication: body
                refresh-before: 45s
            alerts:
              url: /v2/alerts
              list: /items
              paging: {next: /links/next}
              time-format: unix-s
              clock: server
              fields:
                id: /id
                patient: {pointer: /patient_id, strip-prefix: Patient/}
                rule: /type
                severity: {pointer: /level, map: {H: HIGH}}
                raised-at: /created_at
            rules:
              HIGH_BP: bp.hypertensive-crisis
            severities:
              HIGH: high
            """
        let profile = try parse(text, environment: ["TENANT": "t1", "READER": "r-token", "ACME_SECRET": "s3cret"])
        XCTAssertEqual(profile.baseURL, "https://127.0.0.1:9443")
        XCTAssertTrue(profile.tls.insecure)
        XCTAssertEqual(profile.auth.headers, ["X-Tenant: t1"])
        XCTAssertEqual(profile.auth.reader, ["Authorization: Bearer r-token"])
        XCTAssertEqual(
            profile.auth.readerHeaders,
            ["X-Tenant: t1", "Authorization: Bearer r-token"],
            "a reader credential wins over OAuth2"
        )
        var tokenOnly = profile.auth
        tokenOnly.reader = []
        XCTAssertNil(tokenOnly.readerHeaders, "with OAuth2 only, alert reads need the token")
        let oauth2 = try XCTUnwrap(profile.auth.oauth2)
        XCTAssertEqual(oauth2.clientSecret, "s3cret")
        XCTAssertEqual(oauth2.clientAuthentication, .body)
        XCTAssertEqual(oauth2.refreshBefore, 45)
        XCTAssertEqual(oauth2.scope, "vitals.write alerts.read")
        XCTAssertEqual(profile.alerts.url, "/v2/alerts")
        XCTAssertEqual(profile.alerts.list.tokens, ["items"])
        XCTAssertEqual(profile.alerts.paging, .next(try JSONPointer("/links/next")))
        XCTAssertEqual(profile.alerts.fields.timeFormat, .unixSeconds)
        XCTAssertEqual(profile.alerts.clock, .server)
        XCTAssertNil(profile.alerts.fields.evidence)
        XCTAssertEqual(profile.alerts.fields.patient.stripPrefix, "Patient/")
        XCTAssertEqual(profile.alerts.fields.severity.values, ["H": "HIGH"])
        XCTAssertEqual(profile.mapping.rules, ["HIGH_BP": "bp.hypertensive-crisis"])
        XCTAssertEqual(profile.mapping.severities, ["HIGH": "high"])
    }

    func testAnAlertSourceThatOnlyPushes() throws {
        let fields = "  fields: {id: /i, patient: /p, rule: /r, severity: /s, raised-at: /t}"
        let profile = try parse("name: a\nalerts:\n  source: webhook\n\(fields)")
        XCTAssertEqual(profile.alerts.pushOnly, .webhook)
        XCTAssertEqual(try parse("name: a\nalerts:\n  source: poll\n  url: /a\n\(fields)").alerts.pushOnly, nil)
        let cases = [
            (
                "alerts:\n  source: sse\n  url: /a\n\(fields)",
                "/tmp/p.yaml:4:8: error: alerts.url: alerts pushed on sse (source) are not polled: remove url"
            ),
            (
                "alerts:\n  source: fax\n\(fields)",
                "alerts.source: unknown alert source 'fax'; valid: poll, sse, mqtt, webhook"
            ),
            (
                "alerts:\n\(fields)",
                "alerts.url: required key 'url' is missing (where the alert list is polled; or source: sse, mqtt or webhook)"
            ),
        ]
        for (text, expected) in cases {
            let said = problem("name: a\n" + text, environment: [:])
            XCTAssertTrue(said.contains(expected), "\(text)\n→ \(said)\nwanted: \(expected)")
        }
    }

    func testTheSUTsRefusalsOfMQTTReadings() throws {
        XCTAssertNil(try parse("name: a\nmqtt:\n  rejections: none").mqtt.rejections)
        let rejections = try XCTUnwrap(
            try parse("name: a\nmqtt:\n  rejections: {topic: \"rpm/+/nack\", reading-id: /id, status: /code}").mqtt
                .rejections
        )
        XCTAssertTrue(rejections.matches("rpm/501/nack"))
        XCTAssertFalse(
            rejections.matches("rpm/501/ack") || rejections.matches("rpm/501/nack/x")
                || rejections.matches("errors/501")
        )
        XCTAssertTrue(SUTProfile.MQTTRejections().matches("errors/501"), "the reference contract's errors/+")
        let read = rejections.read(Array(#"{"id": "501/hr/3", "code": 422, "field": "payload"}"#.utf8))
        XCTAssertEqual(read?.reading, "501/hr/3")
        XCTAssertEqual(read?.status, 422)
        XCTAssertEqual(read?.field, "payload")
        XCTAssertEqual(
            rejections.read(Array(#"{"id": "501/hr/4"}"#.utf8))?.status,
            400,
            "a refusal without a status counts as 400"
        )
        XCTAssertNil(rejections.read(Array(#"{"code": 422}"#.utf8)), "no reading named")
        var hash = SUTProfile.MQTTRejections()
        hash.topic = "rpm/#"
        XCTAssertTrue(hash.matches("rpm/501/nack"))
        let said = problem("name: a\nmqtt:\n  rejections: {topic: \"a/#/b\"}", environment: [:])
        XCTAssertTrue(said.contains("mqtt.rejections.topic: expected an MQTT topic filter"), said)
    }

    func testDeviceCredentialsFileIsCheckedWithItsOwnLines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitalsim-profile-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = folder.appendingPathComponent("keys.yaml")
        try Data("devices:\n  - {token: t-501, patient: \"501\", device: hr-501}\nreaders:\n  - {token: r-1}\n".utf8)
            .write(to: keys)
        let profile = folder.appendingPathComponent("p.yaml").path
        let p = try parse("name: a\nauth:\n  devices: {file: keys.yaml, header: 'X-API-Key: {token}'}", file: profile)
        let devices = try XCTUnwrap(p.auth.devices)
        XCTAssertEqual(devices.header(patient: "501", device: "hr-501"), "X-API-Key: t-501")
        XCTAssertNil(devices.header(patient: "501", device: "other"))
        XCTAssertEqual(devices.readers, ["r-1"])
        XCTAssertEqual(p.auth.readerHeaders, ["X-API-Key: r-1"], "alerts are read with the file's reader token")

        try Data("devices:\n  - {token: t-501, patient: \"501\"}\n".utf8).write(to: keys)
        do throws(ScenarioLoadError) {
            _ = try parse("name: a\nauth:\n  devices: {file: keys.yaml}", file: profile)
            XCTFail("a device without its device id loaded")
        } catch {
            XCTAssertTrue(
                error.description.contains(
                    "\(keys.path):2:5: error: devices[0].device: required key 'device' is missing"
                ),
                error.description
            )
        }
        do throws(ScenarioLoadError) {
            _ = try parse("name: a\nauth:\n  devices: {file: keys.yaml, header: 'X-API-Key: fixed'}", file: profile)
            XCTFail("a header template without {token} loaded")
        } catch {
            XCTAssertTrue(
                error.description.contains("auth.devices.header: the header must contain {token}"),
                error.description
            )
        }
    }
}

/// The profiles in `docs/sut-profiles.md` load as written.
final class SUTProfileDocsTests: XCTestCase {
    func testEveryProfileInTheDocsLoads() throws {
        let docs = SUTProfileLoaderTests.repository.appendingPathComponent("docs/sut-profiles.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let blocks = text.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let profiles = blocks.filter { $0.hasPrefix("name:") }
        XCTAssertEqual(profiles.count, 5)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitalsim-docs-\(getpid())")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("certs"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not read here".utf8).write(to: folder.appendingPathComponent("certs/acme-ca.pem"))
        let env = ["ACME_TENANT": "t", "ACME_CLIENT_SECRET": "s"]
        for p in profiles {
            let profile = try SUTProfileLoader.parse(
                p,
                file: folder.appendingPathComponent("p.yaml").path,
                environment: env
            )
            XCTAssertFalse(profile.name.isEmpty)
        }
        let credentials = try XCTUnwrap(blocks.first { $0.hasPrefix("devices:") })
        let c = try DeviceCredentialsLoader.parse(credentials, file: "docs", header: "Authorization: Bearer {token}")
        XCTAssertEqual(c.header(patient: "501", device: "hr-strap-501"), "Authorization: Bearer 3f9c0d…")
    }
}

/// The `ingestion:` section: routes parsed with their defaults, and every mistake named.
final class IngestionRoutesLoaderTests: XCTestCase {
    func problem(_ text: String, file: String = "/tmp/p.yaml") -> String {
        do throws(ScenarioLoadError) {
            _ = try SUTProfileLoader.parse(text, file: file, environment: [:])
            return "loaded"
        } catch { return error.description }
    }

    func testShippedFHIRProfileRoutesEveryKind() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/fhir-r4.yaml").path
        let profile = try SUTProfileLoader.load(path: path, environment: [:])
        // Every reading kind has a FHIR form: one route takes them all, no template beside it.
        XCTAssertEqual(profile.ingestion.routes.routes.count, 1)
        let first = try XCTUnwrap(profile.ingestion.routes.routes.first)
        XCTAssertEqual(first.format.name, "fhir-bundle")
        XCTAssertEqual(first.contentType, "application/fhir+json")
        XCTAssertEqual(first.batch, 100)
        XCTAssertNil(first.kinds, "the FHIR route takes every kind")
    }

    /// Request and read-back timeouts are the profile's: a FHIR search over a big store may take
    /// longer than the 10 s default.
    func testTimeoutsAreTheProfilesToSet() throws {
        let text = """
            name: slow
            ingestion:
              timeout: 20s
              routes: [{path: /fhir, format: fhir-bundle}]
            stored-readings:
              url: /fhir/Observation?patient={patient}
              timeout: 1m
              fields: {time: /effectiveDateTime, values: fhir}
            """
        let profile = try SUTProfileLoader.parse(text, file: "slow.yaml", environment: [:])
        XCTAssertEqual(profile.ingestion.timeout, 20)
        XCTAssertEqual(profile.storedReadings?.timeout, 60)
        XCTAssertEqual(SUTProfile.vitalsim.ingestion.timeout, 10)
    }

    /// The plain FHIR store's profile: per-run Patients, every device over HTTP as conditional
    /// creates, every kind read back, no alert source and so no rule claimed.
    func testShippedFHIRServerProfileClaimsNoRuleAndReadsEveryKindBack() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/fhir-server.yaml").path
        let profile = try SUTProfileLoader.load(path: path, environment: [:])
        let route = try XCTUnwrap(profile.ingestion.routes.routes.first)
        XCTAssertEqual(profile.ingestion.routes.routes.count, 1)
        XCTAssertEqual(route.transport, .http, "MQTT devices are relayed over HTTP too")
        XCTAssertEqual(route.writes, .conditionalCreate)
        XCTAssertTrue(route.isIdempotent)
        XCTAssertTrue(profile.alerts.absent)
        XCTAssertEqual(profile.conformance.rules, [])
        XCTAssertFalse(profile.conformance.listsAlerts)
        let readBack = try XCTUnwrap(profile.storedReadings)
        XCTAssertNil(readBack.kinds, "a FHIR store keeps every Observation it was sent")
        XCTAssertEqual(readBack.fields.values, .fhir)
        XCTAssertFalse(profile.lifecycle.enrol.isEmpty)
        XCTAssertTrue(profile.lifecycle.reset.isEmpty, "nothing is deleted from the store")
    }

    func testRoutesWithTemplatesMethodsAndFieldNames() throws {
        let folder = NSTemporaryDirectory() + "ingestion-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"pid": "{{patientId}}", "bpm": {{value}}}"#.write(
            toFile: folder + "/hr.mustache",
            atomically: true,
            encoding: .utf8
        )
        let text = """
            name: acme
            ingestion:
              rejection-field: /errors/0/path
              routes:
                - {kinds: [heart-rate], device-types: [phone-bridge], method: PUT, path: "/v2/patients/{patient}/hr", format: template, template: hr.mustache, rejection-fields: {heartRate: bpm}}
                - {path: /v2/obs, format: vitalsim-observation, batch: 10, content-type: application/vnd.acme+json}
            """
        let profile = try SUTProfileLoader.parse(text, file: folder + "/p.yaml", environment: [:])
        let routes = profile.ingestion.routes.routes
        XCTAssertEqual(profile.ingestion.rejectionField?.description, "/errors/0/path")
        XCTAssertEqual(routes[0].method, "PUT")
        XCTAssertEqual(routes[0].format.name, "template")
        XCTAssertEqual(routes[0].fieldNames, ["heartRate": ["bpm"]])
        XCTAssertEqual(routes[0].deviceTypes, [.phoneBridge])
        XCTAssertEqual(routes[1].batch, 10)
        XCTAssertEqual(routes[1].contentType, "application/vnd.acme+json")

        try "{{#broken}}".write(toFile: folder + "/bad.mustache", atomically: true, encoding: .utf8)
        let bad = problem(
            "name: b\ningestion:\n  routes:\n    - {path: /x, format: template, template: bad.mustache}\n",
            file: folder + "/p.yaml"
        )
        XCTAssertTrue(bad.contains(folder + "/bad.mustache:1:") && bad.contains("template:"), bad)
    }
}

/// The credentials file's `people:`: each person's token, role, expiry and revocation, and every
/// mistake named with its line.
final class PeopleCredentialsLoaderTests: XCTestCase {
    func testPeopleCarryTheirRoleExpiryAndRevocation() throws {
        let credentials = try DeviceCredentialsLoader.parse(
            """
            people:
              - {token: t-ann, person: ann, role: caregiver}
              - {token: t-ann-old, person: ann, role: caregiver, expires: 2025-01-01T00:00:00Z}
              - {token: t-ann-gone, person: ann, role: caregiver, revoked: true}
            """,
            file: "people.yaml",
            header: "Authorization: Bearer {token}"
        )
        XCTAssertEqual(credentials.people.map(\.token), ["t-ann", "t-ann-old", "t-ann-gone"])
        let newYear: Int64 = 1_735_689_600_000
        XCTAssertEqual(credentials.people.map { $0.state(at: newYear - 1) }, [.valid, .valid, .revoked])
        XCTAssertEqual(credentials.people.map { $0.state(at: newYear) }, [.valid, .expired, .revoked])
    }

    func testMistakesAreNamedWithTheirLine() {
        let cases = [
            (
                "  - {token: t, person: ann, role: nurse}",
                "people.yaml:2:35: error: people[0].role: unknown role 'nurse'"
            ),
            (
                "  - {token: t, person: ann, role: caregiver, expires: soon}",
                "people[0].expires: expected an RFC 3339 time"
            ),
            ("  - {token: t, person: ann, role: caregiver, revoked: yes}", "people[0].revoked: expected true or false"),
            ("  - {token: t, role: caregiver}", "people[0].person: required key 'person' is missing"),
        ]
        for (entry, expected) in cases {
            do throws(ScenarioLoadError) {
                _ = try DeviceCredentialsLoader.parse("people:\n" + entry, file: "people.yaml", header: "{token}")
                XCTFail("loaded: \(entry)")
            } catch {
                XCTAssertTrue(error.description.contains(expected), "\(entry): \(error.description)")
            }
        }
    }
}

/// doctor's reading of a FHIR server's CapabilityStatement against what a profile uses.
final class CapabilityReviewTests: XCTestCase {
    func testWhatTheServerDoesNotClaimIsNamed() throws {
        let path = SUTProfileLoaderTests.repository.appendingPathComponent("profiles/fhir-server.yaml").path
        let review = CapabilityReview(profile: try SUTProfileLoader.load(path: path, environment: [:]))
        XCTAssertEqual(
            Set(review.uses.map(\.summary)),
            [
                "transaction of the server", "create of Observation", "conditional create of Observation",
                "update of Patient", "search-type of Observation", "search of Observation by patient",
                "search of Observation by date",
            ]
        )
        func statement(conditionalCreate: Bool, searchParameters: [String]) -> [String: Any] {
            [
                "resourceType": "CapabilityStatement",
                "rest": [
                    [
                        "mode": "server", "interaction": [["code": "transaction"]],
                        "resource": [
                            [
                                "type": "Observation", "conditionalCreate": conditionalCreate,
                                "interaction": [["code": "create"], ["code": "search-type"]],
                                "searchParam": searchParameters.map { ["name": $0] },
                            ],
                            ["type": "Patient", "interaction": [["code": "update"]]],
                        ],
                    ]
                ],
            ]
        }
        XCTAssertEqual(
            review.unclaimed(by: statement(conditionalCreate: true, searchParameters: ["patient", "date"])),
            []
        )
        let missing = review.unclaimed(by: statement(conditionalCreate: false, searchParameters: ["patient"]))
        XCTAssertEqual(missing.map(\.summary), ["conditional create of Observation", "search of Observation by date"])
        XCTAssertEqual(review.unclaimed(by: ["resourceType": "CapabilityStatement"]).count, review.uses.count)
    }
}
