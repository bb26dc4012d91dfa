import Foundation
import InProcessSUT
import Judge
import LiveHarness
import SUTAdapter
import Testing
import Traffic
import VitalSimCore

/// Recipients, acknowledgement and escalation in-process, against the reference SUT with the run's
/// credentials enforced: each person's inbox is read with their own credential after the run, the
/// timeline's acknowledgement is sent while the run is paused at its time, and the golden files'
/// recipients are judged. The healthy SUT passes; `everyone-notified` and `no-escalation` fail
/// with the findings that name them.
struct InProcessEscalationTests {
    static let unacknowledged = InProcessRun.path("core", "unacknowledged-crisis-escalates")
    static let acknowledged = InProcessRun.path("core", "acknowledged-crisis-does-not-escalate")

    static func verdict(_ path: String, faults: [String] = []) async throws -> Verdict {
        let scenario = try TracedScenarioLoader.load(path: path)
        let credentials = RunCredentials(scenario: scenario, naming: .identity)
        return try await InProcessRun.verdict(path, faults: faults) { sut in
            try sut.loadCredentials(credentials.fileText)
        } options: { options in
            options.target.profile.auth.devices = credentials.deviceCredentials(file: "credentials.yaml")
            // The acknowledgement waits for its alert to be listed by the poller; on a slowed machine
            // (the thread sanitizer's) a poll may take longer than InProcessRun's 100 ms. The wait
            // ends when the alert is listed, so a passing run takes no longer.
            options.pacing.alertWait = .seconds(5)
        }
    }

    static func judged(_ verdict: Verdict) -> [String] {
        verdict.checks.filter { $0.kind == .recipients || $0.kind == .careAction }.map {
            ($0.finding?.rawValue ?? "pass") + " " + $0.name
        }
    }

    @Test func anUnacknowledgedCrisisReachesTheCaregiverThenTheClinician() async throws {
        let verdict = try await Self.verdict(Self.unacknowledged)
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(
            Self.judged(verdict) == [
                "pass notifies mia of bp.hypertensive-crisis patient 741",
                "pass escalates bp.hypertensive-crisis patient 741 to dr-osei after 900s",
                "pass notifies nobody else of bp.hypertensive-crisis patient 741",
            ]
        )
        let escalation = verdict.checks.first { $0.name.hasPrefix("escalates ") }
        #expect(escalation?.requirements.contains("alerts.escalation") == true)
        #expect(escalation?.requirements.contains("alerts.recipients") == true)
    }

    @Test func anAcknowledgedCrisisIsTakenAndDoesNotEscalate() async throws {
        let verdict = try await Self.verdict(Self.acknowledged)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(
            Self.judged(verdict) == [
                "pass mia acknowledges bp.hypertensive-crisis patient 742",
                "pass notifies mia of bp.hypertensive-crisis patient 742",
                "pass does not escalate bp.hypertensive-crisis patient 742 to dr-osei",
                "pass notifies nobody else of bp.hypertensive-crisis patient 742",
            ]
        )
    }

    @Test func aSUTNotifyingEveryoneAtOnceIsCaught() async throws {
        let unacknowledged = try await Self.verdict(Self.unacknowledged, faults: ["everyone-notified"])
        #expect(InProcessRun.findings(unacknowledged, latency: false) == [.wrongRecipient, .earlyEscalation])
        #expect(
            InProcessRun.failures(unacknowledged, latency: false) == [
                "early-escalation escalates bp.hypertensive-crisis patient 741 to dr-osei after 900s",
                "wrong-recipient does not notify 741 of bp.hypertensive-crisis patient 741",
                "wrong-recipient does not notify kai of bp.hypertensive-crisis patient 741",
            ]
        )
        let acknowledged = try await Self.verdict(Self.acknowledged, faults: ["everyone-notified"])
        #expect(
            InProcessRun.findings(acknowledged, latency: false) == [.wrongRecipient, .escalatedDespiteAck]
        )
    }

    @Test func aSUTThatNeverEscalatesIsCaught() async throws {
        let verdict = try await Self.verdict(Self.unacknowledged, faults: ["no-escalation"])
        #expect(
            InProcessRun.failures(verdict, latency: false) == [
                "missed-escalation escalates bp.hypertensive-crisis patient 741 to dr-osei after 900s"
            ]
        )
        // The acknowledged crisis does not escalate anyway: the fault changes nothing there.
        let acknowledged = try await Self.verdict(Self.acknowledged, faults: ["no-escalation"])
        #expect(InProcessRun.failures(acknowledged, latency: false) == [])
    }
}
