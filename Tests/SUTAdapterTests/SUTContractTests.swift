import Foundation
import FoundationXML
import Judge
import RunRecord
import SUTAdapter
import XCTest

/// The reports' SUT-contract section: endpoints named with ids templated, statuses counted, the
/// contracts of several scenarios merged, and a scenario that could not be judged reported as an
/// error (JUnit `<error>`), never as a clinical failure.
final class SUTContractTests: XCTestCase {
    func testURLsAreNamedByTemplate() {
        let base = "https://127.0.0.1:8443"
        XCTAssertEqual(
            ContractLog.template(base + "/api/v1/observations", base: base, patient: "501", device: "hr1"),
            "/api/v1/observations"
        )
        XCTAssertEqual(
            ContractLog.template(
                base + "/users/run7-501/devices/hr1/hr?since=12&x",
                base: base,
                patient: "run7-501",
                device: "hr1"
            ),
            "/users/{patient}/devices/{device}/hr?since=…&x=…"
        )
        // Only whole segments: a patient id inside another segment stays.
        XCTAssertEqual(ContractLog.template(base + "/v501/5", base: base, patient: "5", device: nil), "/v501/{patient}")
        // Percent-encoded ids, MQTT topic levels, and a URL outside the base kept whole.
        XCTAssertEqual(ContractLog.template(base + "/p/a%20b", base: base, patient: "a b", device: nil), "/p/{patient}")
        XCTAssertEqual(
            ContractLog.template("vitals/501/spo2", base: "", patient: "501", device: nil),
            "vitals/{patient}/spo2"
        )
        XCTAssertEqual(
            ContractLog.template("https://[::1]:9443/token", base: base, patient: nil, device: nil),
            "https://[::1]:9443/token"
        )
    }

    func testTheLogCountsStatusesAndKeepsTheFirstBodyOfEachRefusal() {
        let log = ContractLog()
        log.use(base: "http://127.0.0.1:1/")
        for (patient, status) in [("501", 201), ("502", 201), ("501", 400), ("502", 400), ("501", 503)] {
            let body = Array("{\"error\":\"\(patient)\"}".utf8)
            log.answered(
                .ingestion,
                method: "PUT",
                url: "http://127.0.0.1:1/p/\(patient)",
                status: status,
                body: body,
                patient: patient
            )
        }
        log.unanswered(
            .ingestion,
            method: "PUT",
            url: "http://127.0.0.1:1/p/501",
            reason: "connection refused",
            patient: "501"
        )
        log.published(topic: "vitals/501/spo2", status: 200, patient: "501", device: "ox1")
        log.published(topic: "vitals/502/spo2", status: 400, patient: "502", device: "ox1")
        log.published(topic: "vitals/502/spo2", status: nil, patient: "502", device: "ox1")
        var alert = ObservedAlert(
            alertID: "a1",
            patientID: "501",
            rule: "X_RULE",
            severity: "high",
            raisedAt: 0,
            evidence: []
        )
        alert.unmapped = "rule 'X_RULE'"
        log.listed(read: [alert, alert], outside: ["b1", "b2", "b1"])
        log.unreadable(2, first: "no raisedAt")
        let summary = log.summary()
        XCTAssertEqual(summary.endpoints.count, 2)
        let put = summary.endpoints.first { $0.name == "PUT /p/{patient}" }
        XCTAssertEqual(put?.statuses, [201: 2, 400: 2, 503: 1])
        XCTAssertEqual(put?.unanswered, 1)
        XCTAssertEqual(put?.firstBodies[400], "{\"error\":\"501\"}", "the first body of each status is kept")
        XCTAssertNil(put?.firstBodies[201])
        XCTAssertEqual(put?.summary, "201 ×2, 400 ×2, 503 ×1, no answer ×1")
        let mqtt = summary.endpoints.first { $0.transport == .mqtt }
        XCTAssertEqual(mqtt?.name, "MQTT vitals/{patient}/spo2")
        XCTAssertEqual(mqtt?.summary, "PUBACK ×1, refused 400 ×1, no PUBACK ×1")
        XCTAssertEqual(summary.alertsRead, 1)
        XCTAssertEqual(summary.unmapped, ["rule 'X_RULE'": 1])
        XCTAssertEqual(summary.outsideRun, 2)
        XCTAssertEqual(summary.unreadable, 2)
    }

    func testContractsOfScenariosMergeByEndpoint() {
        var sutContract = SUTContract()
        var endpoint = SUTContract.Endpoint(role: .ingestion, transport: .http, name: "POST /obs")
        endpoint.statuses = [201: 3]
        sutContract.endpoints = [endpoint]
        sutContract.alertsRead = 2
        sutContract.unmapped = ["rule 'X'": 1]
        var other = SUTContract()
        endpoint.statuses = [201: 1, 401: 2]
        endpoint.firstBodies = [401: "no"]
        var token = SUTContract.Endpoint(role: .token, transport: .http, name: "POST /token")
        token.statuses = [200: 1]
        other.endpoints = [endpoint, token]
        other.alertsRead = 5
        other.unmapped = ["rule 'X'": 2, "severity 'Y'": 1]
        let merged = SUTContract.merged([sutContract, other])
        XCTAssertEqual(merged.endpoints.count, 2)
        XCTAssertEqual(merged.endpoints.first { $0.name == "POST /obs" }?.statuses, [201: 4, 401: 2])
        XCTAssertEqual(
            merged.sortedEndpoints.map(\.role),
            [.token, .ingestion],
            "report order: enrol, token, ingestion, alerts, reset"
        )
        XCTAssertEqual(merged.alertsRead, 7)
        XCTAssertEqual(merged.unmapped, ["rule 'X'": 3, "severity 'Y'": 1])
    }

    func testAScenarioThatCouldNotBeJudgedIsAnErrorInEveryReport() throws {
        var contract = SUTContract()
        var endpoint = SUTContract.Endpoint(role: .ingestion, transport: .http, name: "POST /obs")
        endpoint.statuses = [401: 20]
        endpoint.firstBodies = [401: "{\"error\":\"token <expired>\"}"]
        contract.endpoints = [endpoint]
        var judged = Verdict(scenario: "fine", checks: [])
        judged.contract = SUTContract()
        let verdicts = [judged, Verdict(scenario: "broken", error: "every request was refused", contract: contract)]
        XCTAssertFalse(verdicts[1].passed)
        let junit = RunReport(verdicts).junit
        XCTAssertTrue(junit.contains("errors=\"1\""), junit)
        XCTAssertTrue(junit.contains("<error type=\"infrastructure\" message=\"every request was refused\">"), junit)
        XCTAssertFalse(junit.contains("<failure"), junit)
        XCTAssertTrue(junit.contains("ingestion POST /obs: 401 ×20"), junit)
        // Escaped in the XML, and read back whole by an XML parser.
        XCTAssertFalse(junit.contains("token <expired>"), junit)
        let document = try XMLDocument(xmlString: junit)
        let outputs = try document.nodes(forXPath: "//testsuite[@name='broken']/system-out").compactMap(\.stringValue)
        XCTAssertTrue(outputs.contains { $0.contains(#"first 401: {"error":"token <expired>"}"#) }, junit)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(RunReport(verdicts).json.utf8)) as? [String: Any]
        )
        let broken = try XCTUnwrap((json["scenarios"] as? [[String: Any]])?.last)
        XCTAssertEqual(broken["error"] as? String, "every request was refused")
        XCTAssertEqual(broken["passed"] as? Bool, false)
        let endpoints = (json["contract"] as? [String: Any])?["endpoints"] as? [[String: Any]]
        XCTAssertEqual(endpoints?.first?["statuses"] as? [String: Int], ["401": 20], "the merged contract at the top")
        let console = RunReport(verdicts).console(colour: false)
        XCTAssertTrue(console.contains("ERROR broken: not judged: every request was refused"), console)
        XCTAssertTrue(console.contains("FAIL 1/2 scenario(s), 1 not judged (exit 3)"), console)
        let html = try HTMLReport(verdicts).render()
        XCTAssertTrue(html.contains("<p class=\"error\">") && html.contains("<table class=\"contract\">"), html)
    }
}
