import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// Reads the SUT's audit trail back after a scenario (the profile's `audit:`) with an
/// administrator's credential: once per patient when its URL names `{patient}`, else once; the
/// entries about the scenario's patients, with people and patients mapped back to their scenario
/// ids, for ``Verdict/auditChecks(_:)``.
struct AuditTrailReader {
    let scenario: Scenario
    let naming: WireNaming
    let base: String
    let client: any HTTPExchange
    let profile: SUTProfile
    let lifecycle: PatientLifecycle
    static let timeout = 30.0

    /// Why the trail cannot be read as the profile describes: a misconfiguration.
    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The trail, or a misconfiguration naming the request when it cannot be read as the profile
    /// describes.
    func read() async -> Result<AuditReadBack, AuditTrailReader.Problem> {
        let people = AuditPerson.of(scenario)
        guard let source = profile.audit else {
            return .success(
                AuditReadBack(entries: [], unread: "not read: the SUT profile has no audit section", people: people)
            )
        }
        let headers: [String]
        switch await lifecycle.administratorHeaders() {
        case .success(let held): headers = held.0
        case .failure(let problem): return .failure(.init("reading the audit trail: \(problem.message)"))
        }
        let urls =
            source.url.contains("{patient}")
            ? scenario.patients.map { source.url(patient: naming.patient($0.id), base: base) }
            : [source.url(patient: "", base: base)]
        var entries: [AuditEntry] = []
        for url in urls {
            switch await read(url, source, headers: headers) {
            case .success(let found): entries += found
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(AuditReadBack(entries: entries, people: people))
    }

    /// The entries of one answer about the scenario's patients.
    func read(
        _ url: String,
        _ source: AuditSource,
        headers: [String]
    ) async -> Result<[AuditEntry], AuditTrailReader.Problem> {
        let reply: HTTPReply
        do throws(HTTPTransportError) {
            reply = try await client.send("GET", url, body: nil, headers: headers, timeout: Self.timeout)
        } catch {
            return .failure(.init("reading the audit trail at \(url): \(error.reason)"))
        }
        guard (200..<300).contains(reply.status) else {
            return .failure(
                .init(
                    "reading the audit trail at \(url) with the admin credential: the SUT answered \(reply.status); check audit.url of the profile"
                )
            )
        }
        let document = try? SUTJSON.document(reply.body)
        switch document.map(source.read) ?? .failure(UnreadableAlert(reason: "the answer is not JSON")) {
        case .failure(let problem):
            return .failure(
                .init(
                    "the audit trail at \(url) cannot be read: \(problem.reason); check audit of the profile"
                )
            )
        case .success(let items):
            let patients = Set(scenario.patients.map(\.id))
            return .success(
                items.compactMap { item in
                    let patient = naming.scenarioPatient(item.patient) ?? item.patient
                    guard patients.contains(patient) else { return nil }
                    // A patient acting as a person is known at the SUT by their id there.
                    let agent = item.who.map { naming.scenarioPatient($0) ?? $0 }
                    return AuditEntry(agent: agent, patient: patient, change: item.change, at: item.at)
                }
            )
        }
    }
}
