import Histogram
import RunRecord
import SUTAdapter
import Testing
import Traffic

@testable import LiveHarness

/// The run's state machine on its own: what a due request, an answer, a poll, a push arrival or the
/// SUT's verdict on an MQTT message does to the run, and what the run observed at its end — every
/// moment given by hand, no clock, no SUT.
@Suite struct RunStateTests {
    static let limits = RunState.Limits(outageLimit: .seconds(30), names: .words, rejectionStatuses: [400, 422])

    static func state(channels: [PushChannel] = []) -> RunState {
        RunState(
            limits: limits,
            channels: channels,
            pacing: PollPacing(interval: .milliseconds(50), tightestLimit: nil)
        )
    }

    static func request(
        _ reading: String,
        at sendAt: Int64,
        topic: String? = nil,
        corrupt: Bool = false
    ) -> PlannedRequest {
        var request = PlannedRequest(
            path: "/api/v1/observations",
            body: [],
            readings: [(reading, sendAt)],
            patientID: String(reading.prefix { $0 != "/" }),
            sendAt: sendAt,
            expectedRejection: corrupt ? ExpectedRejection(status: 400, field: "unit") : nil,
            topic: topic,
            deviceID: "d"
        )
        request.deviceTimes = [sendAt]
        return request
    }

    static func alert(_ id: String, evidence: [String]) -> ObservedAlert {
        ObservedAlert(
            alertID: id,
            patientID: "1",
            rule: "hr.tachycardia",
            severity: "high",
            raisedAt: 0,
            evidence: evidence
        )
    }

    @Test func anAnswerIsTimedFromItsRequestsIntendedSendTime() {
        var state = Self.state()
        state.due(0, Self.request("1/d/1", at: 1000), intended: .seconds(1), lag: .milliseconds(5))
        let taken = state.takes(0, dueNow: nil)
        #expect(taken)
        let answered = state.answered(
            0,
            RequestOutcome(status: 201, attempts: 1),
            readings: 3,
            at: .milliseconds(1200),
            route: ""
        )
        #expect(answered == RunState.Answered(count: 1, reached: 1000))
        #expect(state.ack.totalCount == 3, "each reading the request carried")
        #expect(state.ack.valueAtPercentile(50) / 1000 == 200, "200 ms from the intended time")
        #expect(state.lag.max / 1000 == 5)
        #expect(state.stamped[DeviceTimeStamp(patient: "1", time: 1000)] == 0)
        #expect(!state.aborted && !state.unreachable)
    }

    @Test func aRequestWithoutAnAnswerStopsTheRunAndTheRestAreNotSent() {
        var state = Self.state()
        state.due(0, Self.request("1/d/1", at: 0), intended: .zero, lag: .zero)
        state.due(1, Self.request("1/d/2", at: 10), intended: .zero, lag: .zero)
        _ = state.answered(
            0,
            RequestOutcome(error: "connection refused", attempts: 6),
            readings: 1,
            at: .seconds(1),
            route: ""
        )
        #expect(state.aborted && state.unreachable)
        let taken = state.takes(1, dueNow: nil)
        #expect(!taken, "a worker sends nothing once the run has stopped")
        #expect(state.outcomes[1].error == "not sent: the SUT stopped answering")
        state.skipped()
        #expect(state.outcomes.count == 3 && state.intended[2] == nil)
    }

    @Test func missingCredentialsAreAMisconfigurationNotAnUnreachableSUT() {
        var state = Self.state()
        state.due(0, Self.request("1/d/1", at: 0), intended: .zero, lag: .zero)
        state.lacksCredentials("no token for device d of patient 1")
        _ = state.answered(0, RequestOutcome(error: "not sent"), readings: 1, at: .zero, route: "")
        #expect(state.aborted && !state.unreachable)
        #expect(state.health.credentialProblem == "no token for device d of patient 1")
    }

    @Test func anOutageLongerThanTheLimitStopsTheRunNamingTheSetting() {
        var state = Self.state()
        state.due(0, Self.request("1/d/1", at: 0), intended: .zero, lag: .zero)
        _ = state.answered(
            0,
            RequestOutcome(status: 503, attempts: 12, waited: 31),
            readings: 1,
            at: .seconds(31),
            route: ""
        )
        #expect(state.aborted)
        #expect(state.health.abortReason == "the SUT answered 503 for longer than the outage limit without recovering")
        #expect(state.ack.totalCount == 0, "a 5xx is no acknowledgement")
    }

    @Test func progressIsReportedEveryFiftyAnswers() {
        var state = Self.state()
        var reports: [Int] = []
        for index in 0..<120 {
            state.due(index, Self.request("1/d/\(index)", at: Int64(index)), intended: .zero, lag: .zero)
            let answered = state.answered(index, RequestOutcome(status: 200), readings: 1, at: .zero, route: "")
            if answered.reportsProgress { reports.append(answered.count) }
        }
        #expect(reports == [50, 100])
    }

    @Test func eachAlertIsRecordedOnceAtItsFirstSighting() {
        var state = Self.state()
        let first = Self.alert("a1", evidence: [])
        let second = Self.alert("a2", evidence: [])
        state.polled([first], at: .seconds(1), unreadable: AlertList())
        state.polled([second, first], at: .seconds(2), unreadable: AlertList())
        #expect(state.listed.map(\.alertID) == ["a1", "a2"])
        #expect(state.firstSeen["a1"]?.at == .seconds(1))
        #expect(state.observations == 2)
        #expect(state.keepsPolling)
        state.beginQuietWait()
        #expect(!state.keepsPolling, "the wait at the run's end takes the polling over")
    }

    @Test func aPushOnlySourceListsWhatItPushesAndRepeatsAreCounted() {
        var state = Self.state(channels: [.sse])
        let alert = Self.alert("a1", evidence: [])
        let first = state.pushed(alert, on: 0, onlySource: true, at: .seconds(1))
        let again = state.pushed(alert, on: 0, onlySource: true, at: .seconds(2))
        #expect(first == .keepObserving && again == .keepObserving)
        #expect(state.listed.map(\.alertID) == ["a1"])
        #expect(state.push[0].repeats == 1)
        #expect(state.pushSeen[0]["a1"]?.at == .seconds(1))
    }

    @Test func theSUTsMQTTRefusalOverridesTheBrokersAcknowledgement() {
        var state = Self.state()
        let refused = Self.request("1/d/1", at: 0, topic: "vitals/1/heart-rate", corrupt: true)
        let confirmed = Self.request("1/d/2", at: 10, topic: "vitals/1/heart-rate")
        let unconfirmed = Self.request("1/d/3", at: 20, topic: "vitals/1/heart-rate")
        for (index, request) in [refused, confirmed, unconfirmed].enumerated() {
            state.due(index, request, intended: .zero, lag: .zero)
            _ = state.answered(index, RequestOutcome(status: 200, attempts: 1), readings: 1, at: .zero, route: "MQTT")
        }
        state.mqttRefused("1/d/1", status: 422, field: "unit", topic: "errors/1", body: [])
        state.mqttConfirmed(["1/d/2"])
        let sent = [refused, confirmed, unconfirmed].map(SentRequest.init)
        let (observation, _) = state.observation(
            sent: sent,
            start: 0,
            alongside: nil,
            speed: nil,
            now: .seconds(1),
            mqtt: true,
            alertURL: "http://sut/alerts"
        )
        #expect(observation.traffic.outcomes[0].status == 400, "a rejection status of the profile reads as 400")
        #expect(observation.traffic.outcomes[0].field == "unit")
        let delivery = observation.traffic.mqtt
        #expect(delivery?.acknowledged == 3 && delivery?.rejected == 1 && delivery?.confirmed == 1)
        #expect(delivery?.unconfirmed == ["1/d/3"] && delivery?.sutConfirms == true)
    }

    @Test func anAlertIsTimedFromTheIntendedSendOfItsLastEvidence() {
        var state = Self.state()
        state.due(0, Self.request("1/d/1", at: 0), intended: .seconds(1), lag: .zero)
        _ = state.answered(0, RequestOutcome(status: 200), readings: 1, at: .seconds(1), route: "")
        state.polled([Self.alert("a1", evidence: ["1/d/1"])], at: .milliseconds(3500), unreadable: AlertList())
        let (observation, seen) = state.observation(
            sent: [SentRequest(Self.request("1/d/1", at: 0))],
            start: 0,
            alongside: nil,
            speed: 1,
            now: .seconds(5),
            mqtt: nil,
            alertURL: "http://sut/alerts"
        )
        #expect(observation.alerts.latency.valueAtPercentile(50) / 1000 == 2500)
        #expect(seen.first?.carrier == 0 && seen.first?.sinceDue == .seconds(4))
        #expect(observation.traffic.mqtt == nil)
        #expect(observation.misconfiguration == nil)
    }
}

/// The alert list's pacing: quick reads at the poll interval, slow ones less often, never past the
/// budget's quarter, and the resolution of reading → alert latency the median usual cycle.
@Suite struct PollPacingTests {
    @Test func aQuickListIsPolledAtTheInterval() {
        var pacing = PollPacing(interval: .milliseconds(50), tightestLimit: nil)
        let pause = pacing.pause(after: .milliseconds(3))
        #expect(pause == .milliseconds(50))
        #expect(pacing.longestCycle == .milliseconds(53))
    }

    @Test func aListSlowToReadEveryTimeIsReadLessOftenButOneSlowReadChangesNothing() {
        var pacing = PollPacing(interval: .milliseconds(50), tightestLimit: nil)
        for _ in 0..<4 { _ = pacing.pause(after: .milliseconds(100)) }
        let slow = pacing.pause(after: .milliseconds(100))
        #expect(slow == .milliseconds(400))
        var steady = PollPacing(interval: .milliseconds(50), tightestLimit: nil)
        for _ in 0..<3 { _ = steady.pause(after: .milliseconds(5)) }
        let held = steady.pause(after: .seconds(2))
        #expect(held == .milliseconds(50), "the fastest of the recent reads sets the pause")
        #expect(steady.longestCycle == .milliseconds(2050))
        #expect(steady.resolution == .milliseconds(55))
    }

    @Test func thePauseNeverPassesAQuarterOfTheTightestBudget() {
        var pacing = PollPacing(interval: .milliseconds(50), tightestLimit: .milliseconds(800))
        for _ in 0..<4 { _ = pacing.pause(after: .milliseconds(500)) }
        let bounded = pacing.pause(after: .milliseconds(500))
        #expect(bounded == .milliseconds(200))
        #expect(pacing.longestPauseTaken == .milliseconds(200))
    }

    @Test func aPushOnlySourcesPausesAreNoPollCycles() {
        var pacing = PollPacing(interval: .milliseconds(50), tightestLimit: nil)
        let pause = pacing.pause(after: .zero, counted: false)
        #expect(pause == .milliseconds(50))
        #expect(pacing.longestCycle == .zero && pacing.resolution == .zero)
    }
}
