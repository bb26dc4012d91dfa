import Foundation
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import Transports
import XCTest

/// Answers that show a misconfiguration end the run as an infrastructure failure with a message
/// naming the endpoint, the status and the body — never as clinical findings.
final class RunHealthTests: XCTestCase {
    let url = "https://127.0.0.1:1/api/v1/alerts"

    func testEveryRequestRefusedNamesTheFirstRefusal() {
        var runHealth = RunHealth()
        runHealth.pollSucceeded()
        for _ in 0..<3 { XCTAssertNil(runHealth.answered(401)) }
        runHealth.noteRefusal(
            "POST https://127.0.0.1:1/api/v1/observations",
            status: 401,
            body: Array(#"{"error":"token"}"#.utf8)
        )
        let problem = runHealth.problem(alertURL: url, answered: 3) ?? ""
        XCTAssertTrue(problem.contains("accepted none of the 3 request(s)"), problem)
        XCTAssertTrue(
            problem.contains(#"POST https://127.0.0.1:1/api/v1/observations → 401: {"error":"token"}"#),
            problem
        )
        // One accepted request makes it a SUT that refuses some readings, which the checks judge.
        XCTAssertNil(runHealth.answered(200))
        XCTAssertNil(runHealth.problem(alertURL: url, answered: 4))
    }

    func testTwentyRefusalsInARowStopTheRun() {
        var runHealth = RunHealth()
        var reason: String?
        for _ in 0..<RunHealth.refusalLimit { reason = runHealth.answered(404) }
        XCTAssertEqual(reason, "the first 20 requests were all refused with 401, 403, 404 or 405")
        var mixed = RunHealth()
        _ = mixed.answered(201)
        for _ in 0..<40 { XCTAssertNil(mixed.answered(403), "after an acceptance, refusals are findings") }
        var invalid = RunHealth()
        for _ in 0..<40 { XCTAssertNil(invalid.answered(400), "400 is a validation answer, not a misconfiguration") }
    }

    func testAnAlertSourceWithoutAListIsAMisconfiguration() {
        var runHealth = RunHealth()
        _ = runHealth.answered(200)
        runHealth.pollFailed("GET \(url) answered 500: oops")
        XCTAssertEqual(
            runHealth.problem(alertURL: url, answered: 1),
            "the alert source never returned an alert list (1 poll(s)); first: GET \(url) answered 500: oops"
        )
        runHealth.pollSucceeded()
        XCTAssertNil(runHealth.problem(alertURL: url, answered: 1), "a failure the source recovered from is not one")
        runHealth.pollFailed("GET \(url) got no answer: timeout")
        XCTAssertTrue(
            runHealth.problem(alertURL: url, answered: 1)?.hasPrefix("the alert source failed at the end of the run")
                == true
        )
    }

    func testUnreadableAlertsNameWhatIsMissing() throws {
        let good: [String: Any] = [
            "alertId": "a", "patientId": "1", "rule": "temp.fever", "severity": "medium",
            "raisedAt": "2024-11-07T10:00:00Z",
            "evidence": ["1/t/0"],
        ]
        guard case .success(let alert) = AlertFields.vitalsim.read(good, mapping: .init()) else {
            return XCTFail("a complete alert reads")
        }
        XCTAssertEqual(alert.raisedAt, 1_730_973_600_000)
        var cases: [([String: Any], String)] = []
        var noTime = good
        noTime["raisedAt"] = nil
        cases.append((noTime, "it has no raisedAt"))
        var badTime = good
        badTime["raisedAt"] = "yesterday"
        cases.append((badTime, "its raisedAt 'yesterday' is not an RFC 3339 time stamp"))
        var numericRule = good
        numericRule["rule"] = ["x"]
        cases.append((numericRule, "its rule is not a non-empty string or number"))
        var badEvidence = good
        badEvidence["evidence"] = "1/t/0"
        cases.append((badEvidence, "its evidence is not an array of reading ids"))
        for (json, reason) in cases {
            guard case .failure(let why) = AlertFields.vitalsim.read(json, mapping: .init()) else {
                XCTFail(reason)
                continue
            }
            XCTAssertEqual(why.reason, reason)
        }
        // Every poll lists the unreadable alert again: it is one alert, not one per poll.
        let body = try JSONSerialization.data(withJSONObject: [good, noTime])
        let list = try AlertList.read(HTTPReply(status: 200, body: Array(body)), url: url).get()
        XCTAssertEqual(list.alerts.map(\.alertID), ["a"])
        var runHealth = RunHealth()
        _ = runHealth.answered(200)
        for _ in 0..<5 { runHealth.pollSucceeded(unreadable: list) }
        let p = runHealth.problem(alertURL: url, answered: 1) ?? ""
        XCTAssertTrue(
            p.contains("lists 1 alert(s) the harness cannot read")
                && p.contains("first: it has no raisedAt: {\"alertId\":\"a\""),
            p
        )
        XCTAssertTrue(runHealth.alertSourceUnusable)
        guard case .failure(let problem) = AlertList.read(HTTPReply(status: 200, body: Array("<html>".utf8)), url: url)
        else {
            return XCTFail("a body that is not a JSON array is a problem of the whole answer")
        }
        XCTAssertTrue(problem.text.contains("a body that is not JSON: <html>"), problem.text)
    }
}
