import Clocks
import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// The care team at the SUT, through the profile's `care-team:`: a timeline action sent with the
/// acting person's credential on the alert it is for (waiting, while the run is paused there, for
/// that alert to be listed), and after the run each person's notifications read with their own
/// credential.
struct CareTeamClient: Sendable {
    let scenario: Scenario
    let naming: WireNaming
    let base: String
    let client: any HTTPExchange
    let profile: SUTProfile
    let clock: AnyClock<Duration>
    /// How long an action waits for its alert to be listed: the run's alert wait, and never less
    /// than ``leastAlertWait``.
    let alertWait: Duration
    /// The least wait for an action's alert: the alert observer's next read of the SUT, on a
    /// loaded machine, can take this long, and an action sent without its alert is refused.
    static let leastAlertWait = Duration.seconds(3)
    /// Seconds each request may take.
    static let timeout = 30.0
    /// The wall clock (Unix ms) credentials' expiry is judged by.
    let now = Int64(Date().timeIntervalSince1970 * 1000)

    /// The care team of `setup`'s scenario at the SUT at `base`, reached by `runner`'s client.
    init(_ setup: ScenarioSetup, naming: WireNaming, runner: LiveRunner, base: String) {
        scenario = setup.scenario
        self.naming = naming
        self.base = base
        client = runner.client
        profile = setup.options.target.profile
        clock = runner.clock
        alertWait = max(setup.options.pacing.alertWait, Self.leastAlertWait)
    }

    /// The headers of `person`'s requests: the profile's own and the person's valid credential; the
    /// profile's own alone when it names no people at all (an API without people's credentials);
    /// nil when it names people but holds no valid credential of this one.
    func headers(of person: String) -> [String]? {
        guard let credentials = profile.auth.devices, !credentials.people.isEmpty else { return profile.auth.headers }
        guard let held = credentials.people.first(where: { $0.id == person && $0.state(at: now) == .valid }) else {
            return nil
        }
        return profile.auth.headers + [credentials.personHeader(for: held.token)]
    }

    /// The people whose inboxes tell who was notified: the patients with an escalation policy and
    /// everyone in their care teams, once each, in order of appearance.
    var people: [String] {
        var out: [String] = []
        for patient in scenario.patients where !patient.escalation.isEmpty {
            for person in [patient.id] + patient.careTeam.map(\.id) where !out.contains(person) { out.append(person) }
        }
        return out
    }

    /// Carries out `action` once the alert it is for is listed (the patient's latest alert, of its
    /// rule when given, raised at or before the action's time), waiting up to ``alertWait``.
    func perform(_ action: CareTeamAction, observed: @Sendable () -> [ObservedAlert]) async -> CareActionOutcome {
        let at = scenario.startUnixMilliseconds + action.at
        func target() -> ObservedAlert? {
            observed().filter {
                $0.patientID == action.patient && $0.raisedAt <= at && (action.rule == nil || $0.rule == action.rule)
            }.max { $0.raisedAt < $1.raisedAt }
        }
        let deadline = clock.now.advanced(by: alertWait)
        var alert = target()
        while alert == nil, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(50))
            alert = target()
        }
        guard let alert else {
            return CareActionOutcome(
                action: action,
                alert: nil,
                status: nil,
                problem: "none listed within \(alertWait) of the action's time"
            )
        }
        guard let actions = profile.careTeam?.actions else {
            return CareActionOutcome(
                action: action,
                alert: alert,
                status: nil,
                problem: "not sent: the SUT profile has no care-team.actions"
            )
        }
        guard let headers = headers(of: action.person) else {
            return CareActionOutcome(
                action: action,
                alert: alert,
                status: nil,
                problem: "not sent: the profile's credentials hold no valid one of \(action.person) (people:)"
            )
        }
        return await send(action, on: alert, actions, headers: headers)
    }

    /// Posts the action with the person's credential.
    func send(
        _ action: CareTeamAction,
        on alert: ObservedAlert,
        _ actions: CareTeamSource.Actions,
        headers: [String]
    ) async -> CareActionOutcome {
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        let patient = naming.patient(action.patient)
        let path = actions.path
            .replacingOccurrences(
                of: "{alert}",
                with: alert.alertID.addingPercentEncoding(withAllowedCharacters: segment) ?? alert.alertID
            )
            .replacingOccurrences(
                of: "{patient}",
                with: patient.addingPercentEncoding(withAllowedCharacters: segment) ?? patient
            )
        let body = actions.body(action.action, person: action.person, patient: patient, alert: alert.alertID)
        let sentAt = AccessMatrix.wallClock()
        var outcome = await send(actions, path: path, body: body, headers: headers, action: action, alert: alert)
        (outcome.sentAt, outcome.answeredAt) = (sentAt, AccessMatrix.wallClock())
        return outcome
    }

    /// Sends the action's request and reads the SUT's answer.
    func send(
        _ actions: CareTeamSource.Actions,
        path: String,
        body: [UInt8],
        headers: [String],
        action: CareTeamAction,
        alert: ObservedAlert
    ) async -> CareActionOutcome {
        do throws(HTTPTransportError) {
            let reply = try await client.send(
                actions.method,
                SUTProfile.resolve(path, base: base),
                body: body,
                headers: headers + ["Content-Type: \(actions.contentType)"],
                timeout: Self.timeout
            )
            let taken = actions.expect.contains(reply.status)
            return CareActionOutcome(
                action: action,
                alert: alert,
                status: reply.status,
                problem: taken ? nil : String(decoding: reply.body.prefix(200), as: UTF8.self),
                accepted: taken
            )
        } catch {
            return CareActionOutcome(action: action, alert: alert, status: nil, problem: error.reason)
        }
    }

    /// Every person's notifications, read with their own credential; nil with the reason when they
    /// cannot all be read (no `care-team.notifications`, a person without a credential: recipients
    /// are then not judged), or a misconfiguration when an inbox answers what the profile does not
    /// describe.
    func notifications() async -> (notifications: [ObservedNotification]?, note: String?, misconfiguration: String?) {
        guard let source = profile.careTeam?.notifications else {
            return (nil, "the SUT profile has no care-team.notifications", nil)
        }
        var out: [ObservedNotification] = []
        for person in people {
            guard let headers = headers(of: person) else {
                return (nil, "the profile's credentials hold no valid one of \(person) (people:)", nil)
            }
            var segment = CharacterSet.urlQueryAllowed
            segment.remove(charactersIn: "&=+?/#")
            let url = SUTProfile.resolve(
                source.url.replacingOccurrences(
                    of: "{person}",
                    with: person.addingPercentEncoding(withAllowedCharacters: segment) ?? person
                ),
                base: base
            )
            let reply: HTTPReply
            do throws(HTTPTransportError) {
                reply = try await client.send("GET", url, body: nil, headers: headers, timeout: Self.timeout)
            } catch {
                return (nil, nil, "reading the notifications of \(person) at \(url): \(error.reason)")
            }
            guard (200..<300).contains(reply.status) else {
                let problem =
                    "reading the notifications of \(person) at \(url) with their credential: the SUT answered \(reply.status); check care-team.notifications"
                return (nil, nil, problem)
            }
            let document = try? SUTJSON.document(reply.body)
            switch document.map(source.read) ?? .failure(UnreadableAlert(reason: "the answer is not JSON")) {
            case .failure(let problem):
                return (
                    nil, nil,
                    "the notifications of \(person) at \(url) cannot be read: \(problem.reason); check care-team.notifications"
                )
            case .success(let items):
                out += items.map { ObservedNotification(recipient: person, alertID: $0.alertID, at: $0.at) }
            }
        }
        return (out, nil, nil)
    }
}
