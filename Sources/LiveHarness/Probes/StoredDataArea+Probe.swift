import Judge
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

/// Reads back the SUT's stored readings through the profile's `stored-readings:` after the run
/// (before the lifecycle's reset, which may delete them), unless the run already failed to reach the
/// SUT; a read-back that fails is a misconfiguration (exit 3). The narrowed read-backs are asked for
/// the first patients of the whole scenario (a shard's part is of it), so that shards ask what one
/// process would.
extension StoredDataArea: AreaProbe {
    var phase: ProbePhase { .afterRun }

    func observe(in session: ScenarioSession, into record: inout RunObservation) async {
        let scenario = session.setup.scenario
        guard let source = session.setup.options.target.profile.storedReadings, record.reachedTheSUT else { return }
        let runner = session.runner
        var fetch = StoredReadBackFetch(client: runner.client, base: session.base, source: source, auth: runner.auth)
        fetch.narrowedPatients = Set(
            (session.whole?.patients ?? scenario.patients.map(\.id)).prefix(ReadBackQuery.patientLimit)
        )
        var valid: Set<String> = []
        for request in record.traffic.requests {
            fetch.sent[session.naming.patient(request.patientID), default: 0] += request.readingCount
            if request.expectedRejection == nil {
                valid.formUnion(request.readingIDs)
            } else {
                fetch.corrupted.formUnion(request.readingIDs)
            }
        }
        fetch.corrupted.subtract(valid)
        let patients = scenario.patients.map { (scenario: $0.id, wire: session.naming.patient($0.id)) }
        // A shard's read-back shares the SUT with every other shard's, all at once: it gets the time
        // of the whole scenario's (ten shards of a 250,000-patient ward each read back 25,000 patients,
        // and 300 s ended every one of them short of its last 4 %).
        fetch.deadline = StoredReadBackFetch.deadline(patients: session.whole?.patients.count ?? patients.count)
        switch await fetch.fetch(patients: patients, readingID: session.naming.scenarioReadingID) {
        case .success(var stored):
            stored.kinds = source.kinds
            record.areas[StoredReadBack.self] = stored
        case .failure(let problem):
            record.misconfiguration =
                "reading back the stored readings (stored-readings of the profile): \(problem.text)"
        }
    }
}
