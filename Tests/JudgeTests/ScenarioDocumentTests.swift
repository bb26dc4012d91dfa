import Judge
import TestFixtures
import VitalSimCore
import XCTest

/// A scenario cut down to some of its parts stays a valid scenario: removed patients take their
/// devices and timeline entries with them, everything else is kept as written.
final class ScenarioDocumentTests: XCTestCase {
    let path = Fixtures.repositoryRoot + "/scenarios/boundaries/cgm-thresholds.yaml"

    func testTheWholeDocumentLoadsAsTheOriginal() throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let document = try ScenarioDocument(text: text, file: path)
        XCTAssertEqual(document.patients.map(\.id), ["level1", "urgent", "level2", "high"])
        XCTAssertEqual(document.timeline.count, 24)
        let whole = try ScenarioLoader.parse(
            document.text(document.whole, name: "cgm-min", description: "d"),
            file: "whole"
        )
        let original = try ScenarioLoader.parse(text, file: path)
        XCTAssertEqual(whole.name, "cgm-min")
        XCTAssertEqual(whole.patients.count, original.patients.count)
        XCTAssertEqual(whole.timeline.count, original.timeline.count)
        XCTAssertEqual(whole.seed, original.seed)
        XCTAssertEqual(whole.startUnixMilliseconds, original.startUnixMilliseconds)
    }

    func testARemovedPatientTakesItsDevicesAndTimelineEntries() throws {
        let document = try ScenarioDocument(text: String(contentsOfFile: path, encoding: .utf8), file: path)
        var s = document.whole
        s.patients = [2]
        s.duration = .hours(4)
        let text = document.text(s, name: "level2-only", description: "only the level 2 patient")
        let scenario = try ScenarioLoader.parse(text, file: "cut")
        XCTAssertEqual(scenario.patients.map(\.id), ["level2"])
        XCTAssertEqual(scenario.patients[0].devices.map(\.id), ["cgm-level2"])
        XCTAssertEqual(scenario.timeline.count, 6, "the level 2 patient's six scripted runs")
        XCTAssertEqual(scenario.duration, .hours(4))
        XCTAssertEqual(document.applicableTimeline(s), Array(13..<19))
        XCTAssertTrue(text.contains("noise: off"), "patient keys kept:\n" + text)
    }

    func testSignaturesIgnoreTimesOccurrencesAndReadingPositions() {
        func check(_ name: String, _ finding: Finding?) -> Check {
            Check(kind: .alert, name: name, rule: nil, finding: finding, detail: "")
        }
        XCTAssertNil(FailureSignature(check("alert hr.tachycardia patient 501", nil)))
        XCTAssertEqual(
            FailureSignature(check("alert hr.tachycardia patient 501 #2", .missed))?.description,
            "missed alert hr.tachycardia patient 501"
        )
        XCTAssertEqual(
            FailureSignature(check("unexpected alert spo2.low patient a at 2024-11-07T09:31:00.000Z", .spurious))?
                .description,
            "spurious unexpected alert spo2.low patient a"
        )
        XCTAssertEqual(
            FailureSignature(check("rejects 511/cgm-511/37", .validationMismatch))?.subject,
            "rejects 511/cgm-511"
        )
        XCTAssertEqual(FailureSignature(check("readings delivered", .lost))?.subject, "readings delivered")
    }
}
