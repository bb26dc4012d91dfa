import ReferenceEngine
import Traffic
import VitalSimCore
import XCTest

/// Readings sent through SUT-profile routes as FHIR R4 (one Observation per request, or transaction
/// Bundles): the reference SUT's own FHIR decoder accepts every valid one with the values the
/// observation JSON carries (RR intervals too), and refuses every corrupted one naming an element
/// that the plan maps back to the field golden files name.
final class FHIRRouteTests: XCTestCase {
    /// Battery levels keep the observation JSON here: the routes under test are the vital signs'.
    static let battery = IngestionRoute(kinds: [.battery], path: "/api/v1/observations", format: .vitalsimObservation)
    static let routes: [String: IngestionRoutes] = [
        "observation": IngestionRoutes(routes: [
            battery, IngestionRoute(path: "/fhir/Observation", format: .fhirObservation),
        ]),
        "bundle": IngestionRoutes(routes: [
            battery, IngestionRoute(path: "/fhir", format: .fhirBundle(type: "transaction"), batch: 100),
        ]),
    ]

    /// The reference SUT's verdict on one FHIR request: the observations, or the element it names.
    func verdict(_ plannedRequest: PlannedRequest, now: Int64) -> Result<[Observation], ValidationFailure> {
        guard let body = JSONInput.parse(plannedRequest.body) else {
            return .failure(ValidationFailure(field: "", message: "not JSON"))
        }
        do throws(ValidationFailure) {
            return .success(
                plannedRequest.path == "/fhir"
                    ? try FHIRBundle.parse(body, now: now) : [try FHIRObservation.parse(body, now: now)]
            )
        } catch { return .failure(error) }
    }

    func testEveryFHIRFormIsAcceptedOrRefusedNamingTheExpectedField() throws {
        let scenario = try ScenarioLoader.parse(InvalidPayloadTests.text, file: "invalid-json.yaml")
        let now = scenario.startUnixMilliseconds + 86_400_000
        for (name, routes) in Self.routes.sorted(by: { $0.key < $1.key }) {
            var fields: Set<String> = []
            var accepted = 0
            for r in TrafficPlanStream(for: scenario, routes: routes) {
                XCTAssertNil(r.unroutable, "\(name): \(r.unroutable ?? "")")
                guard r.path.hasPrefix("/fhir") else { continue }
                let text = String(decoding: r.body, as: UTF8.self)
                switch (verdict(r, now: now), r.expectedRejection) {
                case (.success(let observations), nil): accepted += observations.count
                case (.success, let expected?):
                    XCTFail("\(name): accepted a body that must be refused naming \(expected.field): \(text)")
                case (.failure(let failure), nil):
                    XCTFail("\(name): refused a valid body naming \(failure.field) (\(failure.message)): \(text)")
                case (.failure(let failure), let expected?):
                    XCTAssertEqual(
                        expected.canonical(failure.field),
                        expected.field,
                        "\(name): \(failure.message): \(text)"
                    )
                    fields.insert(expected.field)
                }
            }
            XCTAssertGreaterThan(accepted, 10, name)
            XCTAssertEqual(
                fields,
                ["heartRate", "stepCount", "systolic", "value", "timestamp", "unexpectedField", ""],
                name
            )
        }
    }

    /// Each Observation is a conditional create on its reading's identifier: a Bundle entry's
    /// `request.ifNoneExist`, a single Observation's `If-None-Exist` header; with `writes: create`
    /// neither, so a server may store a reading sent again twice, as FHIR says.
    func testFHIRWritesAreConditionalCreatesUnlessTheRouteSaysCreate() throws {
        let scenario = try ScenarioLoader.parse(InvalidPayloadTests.text, file: "invalid-json.yaml")
        func readingID(_ resource: Any?) -> String {
            let identifiers = (resource as? [String: Any])?["identifier"] as? [[String: Any]]
            return identifiers?.first?["value"] as? String ?? "?"
        }
        for writes in [FHIRWrites.conditionalCreate, .create] {
            var conditions: [String: Int] = ["entries": 0, "singles": 0]
            for (name, routes) in Self.routes.sorted(by: { $0.key < $1.key }) {
                var routes = routes
                routes.routes[1].writes = writes
                for r in TrafficPlanStream(for: scenario, routes: routes) where r.path.hasPrefix("/fhir") {
                    guard let body = try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any] else {
                        continue  // a truncated body
                    }
                    let condition = { (id: String) in writes == .create ? nil : FHIRWrites.condition(readingID: id) }
                    if name == "observation" {
                        XCTAssertEqual(r.headers, condition(readingID(body)).map { ["If-None-Exist: " + $0] } ?? [])
                        conditions["singles", default: 0] += 1
                        continue
                    }
                    XCTAssertEqual(r.headers, [])
                    for entry in body["entry"] as? [[String: Any]] ?? [] {
                        let request = entry["request"] as? [String: Any]
                        XCTAssertEqual(request?["ifNoneExist"] as? String, condition(readingID(entry["resource"])))
                        XCTAssertEqual(request?["method"] as? String, "POST")
                        conditions["entries", default: 0] += 1
                    }
                }
            }
            XCTAssertGreaterThan(conditions["entries"] ?? 0, 10, writes.rawValue)
            XCTAssertGreaterThan(conditions["singles"] ?? 0, 10, writes.rawValue)
        }
        XCTAssertEqual(
            FHIRWrites.condition(readingID: "a&b|c d"),
            "identifier=urn:vitalsim:reading|a%26b%7Cc%20d",
            "a search value is percent-encoded where a query needs it"
        )
    }

    /// A heart-rate strap's readings: the same values and RR intervals through FHIR as through the
    /// observation JSON.
    func testHeartRateAndRRIntervalsSurviveTheFHIRForm() throws {
        let text = """
            name: rr
            seed: 5
            duration: 10m
            start: 2024-11-07T23:00:00Z
            patients:
              - id: "802"
                profile: adult
                devices:
                  - {id: strap, type: heart-rate-strap, transport: https, cadence: 1s}
            """
        let scenario = try ScenarioLoader.parse(text, file: "rr.yaml")
        let now = scenario.startUnixMilliseconds + 86_400_000
        var viaJSON: [Observation] = []
        for r in TrafficPlanStream(for: scenario) {
            guard case let .array(items)? = JSONInput.parse(r.body) else { continue }
            for item in items {
                let observation = try PayloadValidation.observation(item, now: now)
                if observation.values[.heartRate] != nil { viaJSON.append(observation) }
            }
        }
        var viaFHIR: [Observation] = []
        for r in TrafficPlanStream(for: scenario, routes: Self.routes["bundle"]!) where r.path == "/fhir" {
            viaFHIR += try verdict(r, now: now).get()
        }
        XCTAssertEqual(viaFHIR.count, viaJSON.count)
        XCTAssertGreaterThan(viaFHIR.filter { !$0.rrIntervals.isEmpty }.count, viaFHIR.count / 2)
        for (a, b) in zip(viaJSON, viaFHIR) {
            XCTAssertEqual(a.readingID, b.readingID)
            XCTAssertEqual(a.values, b.values)
            XCTAssertEqual(a.time, b.time)
            XCTAssertEqual(a.rrIntervals.count, b.rrIntervals.count)
            for (x, y) in zip(a.rrIntervals, b.rrIntervals) { XCTAssertEqual(x, y, accuracy: 1e-9) }
        }
    }

    func testUnknownElementsAndBadBundlesAreRefusedByName() throws {
        let observation =
            #"{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"subject":{"reference":"Patient/1"},"effectiveDateTime":"2024-11-07T10:00:00Z","valueQuantity":{"value":70,"system":"http://unitsofmeasure.org","code":"/min"}"#
        func field(_ text: String, bundle: Bool = false) -> String? {
            do throws(ValidationFailure) {
                let input = JSONInput.parse(Array(text.utf8))!
                _ =
                    bundle
                    ? try FHIRBundle.parse(input, now: Int64.max / 2)
                    : [try FHIRObservation.parse(input, now: Int64.max / 2)]
                return nil
            } catch { return error.field }
        }
        XCTAssertNil(field(observation + "}"))
        XCTAssertEqual(field(observation + #","valueQuantty":{}}"#), "valueQuantty")
        let entry =
            #"{"resource":"# + observation + #","valueQuantty":1},"request":{"method":"POST","url":"Observation"}}"#
        XCTAssertEqual(
            field(#"{"resourceType":"Bundle","type":"transaction","entry":["# + entry + "]}", bundle: true),
            "Bundle.entry[0].resource.valueQuantty"
        )
        XCTAssertEqual(field(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#, bundle: true), "Bundle.type")
        XCTAssertEqual(
            field(
                #"{"resourceType":"Bundle","type":"batch","entry":[{"resource":{},"request":{"method":"PUT","url":"Observation"}}]}"#,
                bundle: true
            ),
            "Bundle.entry[0].request"
        )
    }
}
