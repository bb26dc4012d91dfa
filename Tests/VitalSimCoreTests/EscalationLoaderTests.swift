import VitalSimCore
import XCTest

/// A patient's escalation policy and the care team's actions in the timeline, strictly loaded.
final class EscalationLoaderTests: XCTestCase {
    let scenario = """
        name: escalation
        duration: 2h
        patients:
          - id: "731"
            profile: adult
            care-team:
              - {id: mia, role: caregiver}
              - {id: dr-osei, role: clinician}
            escalation:
              high:
                - notify: [mia]
                - {after: 10m, notify: [dr-osei, "731"]}
              medium:
                - notify: mia
            devices: [{id: cuff-731, type: bp-cuff, cadence: 5m}]
        timeline:
          - {at: 1h30m, person: dr-osei, patient: "731", action: dismiss}
          - {at: 1h, person: mia, patient: "731", action: acknowledge, rule: bp.hypertensive-crisis}
        """

    func issues(_ text: String) -> [ScenarioIssue] {
        do {
            _ = try ScenarioLoader.parse(text, file: "broken.yaml")
            return []
        } catch { return error.issues }
    }

    func testAPolicyPerSeverityAndActionsInTimeOrder() throws {
        let s = try ScenarioLoader.parse(scenario, file: "e.yaml")
        let policy = s.patients[0].escalation
        XCTAssertEqual(
            policy.steps(for: .high),
            [EscalationStep(after: 0, notify: ["mia"]), EscalationStep(after: 600_000, notify: ["dr-osei", "731"])]
        )
        XCTAssertEqual(policy.steps(for: .medium), [EscalationStep(after: 0, notify: ["mia"])])
        XCTAssertEqual(policy.steps(for: .low), [])
        XCTAssertEqual(policy.severities, [.medium, .high])
        XCTAssertEqual(
            s.careActions,
            [
                CareTeamAction(
                    at: 3_600_000,
                    person: "mia",
                    patient: "731",
                    action: .acknowledge,
                    rule: "bp.hypertensive-crisis"
                ),
                CareTeamAction(at: 5_400_000, person: "dr-osei", patient: "731", action: .dismiss),
            ]
        )
        XCTAssertTrue(s.timeline.isEmpty, "actions are not clinical events, faults or scripted readings")
    }

    func testEachMistakeIsNamedWithLineAndField() {
        let mistakes: [(String, String, Int, String, String)] = [
            ("high:", "urgent:", 10, "patients[0].escalation.urgent", "unknown key 'urgent'"),
            (
                "- notify: [mia]", "- {after: 5m, notify: [mia]}", 11, "patients[0].escalation.high[0].after",
                "leave 'after' out"
            ),
            ("{after: 10m, notify:", "{notify:", 12, "patients[0].escalation.high[1].after", "needs 'after'"),
            ("{after: 10m, notify:", "{after: 0s, notify:", 12, "patients[0].escalation.high[1].after", "later than"),
            (
                "{after: 10m, notify:", "{after: 90.5s, notify:", 12, "patients[0].escalation.high[1].after",
                "whole number"
            ),
            ("[dr-osei, \"731\"]", "[dr-ross]", 12, "patients[0].escalation.high[1].notify[0]", "nor in the care team"),
            ("[dr-osei, \"731\"]", "[mia]", 12, "patients[0].escalation.high[1].notify[0]", "already notified"),
            ("- notify: mia", "- notify: []", 14, "patients[0].escalation.medium[0].notify", "at least one person"),
            ("action: dismiss", "action: ignore", 17, "timeline[0].action", "unknown care-team action 'ignore'"),
            ("person: dr-osei", "person: dr-ross", 17, "timeline[0].person", "nor in the patient's care team"),
            (
                "patient: \"731\", action: dismiss", "patient: \"9\", action: dismiss", 17, "timeline[0].patient",
                "no patient '9'"
            ),
            ("{at: 1h30m,", "{at: 2h,", 17, "timeline[0].at", "at or after the end"),
            ("rule: bp.hypertensive-crisis}", "note: late}", 18, "timeline[1].note", "unknown key 'note'"),
        ]
        for (old, replacement, line, field, message) in mistakes {
            let found = issues(scenario.replacingOccurrences(of: old, with: replacement))
            XCTAssertTrue(
                found.contains { $0.line == line && $0.field == field && $0.message.contains(message) },
                "\(replacement): \(found)"
            )
        }
    }
}
