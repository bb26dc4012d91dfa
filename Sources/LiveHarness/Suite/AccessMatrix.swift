import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Sends the access-control matrix (``AccessProbe/planned(_:people:stale:)``) after a
/// scenario's read-back and before its reset: each person's credential from the profile's
/// `people:` on their own patient's and another patient's readings, alerts, ingestion, enrolment
/// and deletion, each answer recorded for the judge. The reads go first and deletions last, so a
/// SUT that wrongly deletes spoils nothing before it is caught.
struct AccessMatrix {
    let scenario: Scenario
    let naming: WireNaming
    let base: String
    let client: any HTTPExchange
    let profile: SUTProfile
    let lifecycle: PatientLifecycle
    /// The first HTTP request of a patient's traffic (scenario id), for the ingestion probe.
    let firstRequest: (String) -> PlannedRequest?
    /// Seconds each probe may take.
    static let timeout = 30.0
    /// The wall clock (Unix ms) credentials' expiry is judged by: a validity is about now.
    let now = Int64(Date().timeIntervalSince1970 * 1000)

    /// The probes for the scenario's people who have a credential in the profile; empty when the
    /// profile names no people or the scenario has no care team.
    func planned() -> [AccessProbe] {
        guard let credentials = profile.auth.devices, !credentials.people.isEmpty else { return [] }
        let everyone = AccessProbe.people(of: scenario)
        let held = Set(credentials.people.filter { $0.state(at: now) == .valid }.map(\.id))
        var stale: [(person: String, credential: AccessProbe.Credential)] = []
        for c in credentials.people where everyone.contains(where: { $0.person == c.id }) {
            let state = c.state(at: now)
            if state != .valid, !stale.contains(where: { $0 == (c.id, state) }) { stale.append((c.id, state)) }
        }
        return AccessProbe.planned(scenario, people: everyone.filter { held.contains($0.person) }, stale: stale)
    }

    /// Sends every probe and returns them with the SUT's answers; `observed` is the run's alert list
    /// as the reader saw it (what a person's list may and must hold).
    func run(observed: [ObservedAlert]) async -> [AccessProbe] {
        guard let credentials = profile.auth.devices else { return [] }
        var probes: [AccessProbe] = []
        for var probe in planned() {
            guard
                let held = credentials.people.first(where: {
                    $0.id == probe.person && $0.state(at: now) == probe.credential
                })
            else { continue }
            let headers = profile.auth.headers + [credentials.personHeader(for: held.token)]
            await send(&probe, headers: headers, observed: observed)
            probes.append(probe)
        }
        return probes
    }

    /// Sends one probe with `headers` and records the answer.
    func send(_ probe: inout AccessProbe, headers: [String], observed: [ObservedAlert]) async {
        guard let patient = scenario.patients.first(where: { $0.id == probe.patient }) else { return }
        let wire = naming.patient(patient.id)
        let request: (method: String, url: String, body: [UInt8]?, contentType: String)
        switch probe.operation {
        case .readReadings:
            guard let source = profile.storedReadings else {
                probe.unobservable = "not probed: the profile has no stored-readings"
                return
            }
            request = ("GET", StoredReadingsSource.url(source.url, patient: wire, base: base), nil, "")
        case .readAlerts:
            if let unseen = unobservable(probe, observed) {
                probe.unobservable = unseen
                return
            }
            let url = (profile.alerts.urls.first ?? profile.alerts.url).replacingOccurrences(
                of: "{patient}",
                with: wire
            )
            request = ("GET", SUTProfile.resolve(url, base: base), nil, "")
        case .readAudit:
            guard let source = profile.audit else {
                probe.unobservable = "not probed: the profile has no audit"
                return
            }
            request = ("GET", source.url(patient: wire, base: base), nil, "")
        case .ingest:
            guard let planned = firstRequest(patient.id) else {
                probe.unobservable = "not probed: patient \(patient.id) sends nothing over HTTP"
                return
            }
            request = (planned.method, SUTProfile.resolve(planned.path, base: base), planned.body, planned.contentType)
        case .enrol, .delete:
            guard
                let r = lifecycle.probeRequest(
                    reset: probe.operation == .delete,
                    for: patient,
                    referenceContract: profile.ingestion.routes.isBuiltIn && profile.lifecycle.isEmpty
                )
            else {
                probe.unobservable =
                    "not probed: the profile's lifecycle has no request that would \(probe.operation.rawValue)"
                return
            }
            request = r
        }
        var all = headers
        if request.body != nil { all.append("Content-Type: \(request.contentType)") }
        let reply: HTTPReply
        probe.sentAt = Self.wallClock()
        defer { probe.answeredAt = Self.wallClock() }
        do throws(HTTPTransportError) {
            reply = try await client.send(
                request.method,
                request.url,
                body: request.body,
                headers: all,
                timeout: Self.timeout
            )
        } catch {
            probe.error = error.reason
            return
        }
        probe.status = reply.status
        guard (200..<300).contains(reply.status) else { return }
        judgeContent(&probe, reply, url: request.url, observed: observed)
    }

    /// The wall clock, Unix ms: the SUT's audit trail stamps accesses with its own.
    static func wallClock() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Why a probe of the alert list can show nothing: the patient raised no alert the reader saw.
    func unobservable(_ probe: AccessProbe, _ observed: [ObservedAlert]) -> String? {
        guard !observed.contains(where: { $0.patientID == probe.patient }) else { return nil }
        return
            "not judged: patient \(probe.patient) raised no alert the reader saw, so the list can neither show nor hide one"
    }

    /// What a granted read revealed (another patient's data) or left out (the person's own).
    func judgeContent(_ probe: inout AccessProbe, _ reply: HTTPReply, url: String, observed: [ObservedAlert]) {
        switch probe.operation {
        case .readReadings:
            let document = try? SUTJSON.document(reply.body)
            let items = document.flatMap { profile.storedReadings?.items(in: $0) } ?? []
            if !probe.mustGrant, !items.isEmpty {
                probe.leaked = ["\(items.count) stored reading(s) of patient \(probe.patient) on the first page"]
            }
        case .readAlerts:
            switch AlertList.read(reply, url: url, source: profile.alerts, mapping: profile.mapping, base: base) {
            case .failure(let problem): probe.lacking = problem.text
            case .success(let list):
                let listed = list.alerts.map { (naming.scenarioPatient($0.patientID) ?? $0.patientID, $0) }
                if probe.inCare {
                    let own = observed.filter { $0.patientID == probe.patient }
                    if !listed.contains(where: { $0.0 == probe.patient }) {
                        probe.lacking =
                            "its list holds none of the \(own.count) alert(s) of patient \(probe.patient) the reader sees"
                    }
                } else {
                    probe.leaked = listed.filter { $0.0 == probe.patient }.map {
                        "alert \($0.1.alertID) (\($0.1.rule)) of patient \(probe.patient)"
                    }
                }
            }
        case .readAudit:
            let document = try? SUTJSON.document(reply.body)
            let entries = (document.flatMap { try? profile.audit?.read($0).get() } ?? []).filter {
                (naming.scenarioPatient($0.patient) ?? $0.patient) == probe.patient
            }
            if !entries.isEmpty { probe.leaked = ["\(entries.count) audit entr(ies) of patient \(probe.patient)"] }
        case .ingest, .enrol, .delete: return
        }
    }
}
