import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// After a scenario's patients are deleted — by the profile's lifecycle `reset:`, or here through the
/// reference contract (`DELETE /api/v1/patients/{id}` with the admin credential) when the run's
/// SUT is the embedded one — reads the first page of each patient's stored readings and of the alert
/// list with the reader's credential, for ``Verdict/deletionChecks(_:)``.
struct DeletionReadBack {
    let scenario: Scenario
    let naming: WireNaming
    let base: String
    let client: any HTTPExchange
    let profile: SUTProfile
    let lifecycle: PatientLifecycle
    let auth: RequestAuth
    static let timeout = 30.0

    /// Whether the run deletes the patients itself: the reference contract without a lifecycle, on
    /// a SUT the run owns (`owned`: the embedded SUT, or a test's in-process one).
    func deletesHere(owned: Bool) -> Bool {
        owned && profile.lifecycle.isEmpty && profile.ingestion.routes.isBuiltIn
    }

    /// What each patient still shows; `delete` sends the reference contract's deletion first.
    func read(delete: Bool) async -> [DeletedPatientRead] {
        var reads = scenario.patients.map { DeletedPatientRead(patient: $0.id) }
        if delete {
            let admin: [String]
            switch await lifecycle.administratorHeaders() {
            case .success(let held): admin = held.0
            case .failure(let problem):
                return reads.map { read in
                    var read = read
                    read.unobservable = "not judged: no admin credential to delete with (\(problem.message))"
                    return read
                }
            }
            for (i, patient) in scenario.patients.enumerated() {
                reads[i].unobservable = await deleted(patient, headers: admin)
            }
        }
        let headers: [String]
        switch await auth.reader() {
        case .success(let held): headers = held.0
        case .failure(let problem):
            return reads.map { read in
                var read = read
                read.unobservable = read.unobservable ?? "not judged: no reader credential (\(problem.message))"
                return read
            }
        }
        for i in reads.indices where reads[i].unobservable == nil {
            await readStored(&reads[i], headers: headers)
        }
        await readAlerts(&reads, headers: headers)
        return reads
    }

    /// Deletes `patient` through the reference contract; why it failed, if it did.
    func deleted(_ patient: PatientSpec, headers: [String]) async -> String? {
        guard let request = lifecycle.probeRequest(reset: true, for: patient, referenceContract: true) else {
            return "not judged: no request deletes a patient"
        }
        do throws(HTTPTransportError) {
            let reply = try await client.send(
                request.method,
                request.url,
                body: nil,
                headers: headers,
                timeout: Self.timeout
            )
            return (200..<300).contains(reply.status)
                ? nil : "not judged: deleting the patient (\(request.method) \(request.url)) answered \(reply.status)"
        } catch {
            return "not judged: deleting the patient got no answer: \(error.reason)"
        }
    }

    /// The first page of the patient's stored readings (a 2xx listing any is a finding).
    func readStored(_ read: inout DeletedPatientRead, headers: [String]) async {
        guard let source = profile.storedReadings else { return }
        let url = StoredReadingsSource.url(source.url, patient: naming.patient(read.patient), base: base)
        do throws(HTTPTransportError) {
            let reply = try await client.send("GET", url, body: nil, headers: headers, timeout: Self.timeout)
            read.readingsStatus = reply.status
            if reply.status >= 500 {
                read.unobservable = "not judged: GET \(url) answered \(reply.status)"
                return
            }
            guard (200..<300).contains(reply.status) else { return }
            let document = try? SUTJSON.document(reply.body)
            read.readingsListed = document.flatMap { source.items(in: $0) }?.count ?? 0
        } catch {
            read.unobservable = "not judged: GET \(url) got no answer: \(error.reason)"
        }
    }

    /// The first page of the alert list: the deleted patients' alerts it still shows.
    func readAlerts(_ reads: inout [DeletedPatientRead], headers: [String]) async {
        let url = SUTProfile.resolve(profile.alerts.urls.first ?? profile.alerts.url, base: base)
        guard !url.contains("{patient}") else { return }
        let reply: HTTPReply
        do throws(HTTPTransportError) {
            reply = try await client.send("GET", url, body: nil, headers: headers, timeout: Self.timeout)
        } catch { return }
        guard
            case .success(let list) = AlertList.read(
                reply,
                url: url,
                source: profile.alerts,
                mapping: profile.mapping,
                base: base
            )
        else { return }
        for i in reads.indices where reads[i].unobservable == nil {
            reads[i].alertsListed = list.alerts.filter {
                (naming.scenarioPatient($0.patientID) ?? $0.patientID) == reads[i].patient
            }.map(\.alertID)
        }
    }
}
