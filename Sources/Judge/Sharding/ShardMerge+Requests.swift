import RunRecord

extension ShardMerge {
    /// Every scenario's requests over the shards' results that ``merge(_:)`` accepted (it checks
    /// their lists), in the unsharded run's order: by due time, then the patient's place in the
    /// scenario (each patient's requests come from one shard), then the order its shard sent them in.
    package static func requests(
        _ results: [(file: String, result: ShardResult)]
    ) -> [(scenario: String, requests: [SentOutcome])] {
        guard let first = results.first else { return [] }
        return first.result.scenarios.indices.map { i in
            let reference = first.result.scenarios[i]
            let place = Dictionary(reference.patients.enumerated().map { ($1, $0) }) { a, _ in a }
            let all = results.flatMap { $0.result.scenarios[i].requests ?? [] }.enumerated()
            let sorted = all.sorted { a, b in
                (a.element.at, place[a.element.patient] ?? .max, a.offset) < (
                    b.element.at, place[b.element.patient] ?? .max, b.offset
                )
            }
            return (reference.scenario, sorted.map(\.element))
        }
    }

    /// Each judged part lists its requests, every one of its own patients, with well-formed reading
    /// runs, adding up to the counts of its verdict; no reading was sent by two shards.
    static func checkRequests(
        _ parts: [(file: String, part: ShardResult.Part)],
        _ reference: ShardResult.Part
    ) throws(MergeError) {
        var sentBy: [String: String] = [:]
        for p in parts {
            guard let record = p.part.verdict, record.error == nil else { continue }
            guard let requests = p.part.requests else { throw .incomplete(file: p.file, scenario: reference.scenario) }
            let own = Set(p.part.ran)
            var listed = (acknowledged: 0, rejected: 0, failed: 0)
            for (n, r) in requests.enumerated() {
                if let bad = r.malformedRun {
                    throw .unreadable(
                        file: p.file,
                        reason:
                            "\(reference.scenario), request \(n + 1): reading run '\(bad)' is not PREFIX/FIRST or PREFIX/FIRST+COUNT"
                    )
                }
                guard own.contains(r.patient) else {
                    throw .foreignRequest(
                        file: p.file,
                        scenario: reference.scenario,
                        patient: r.patient,
                        device: r.device,
                        at: r.at
                    )
                }
                switch r.fate {
                case .acknowledged: listed.acknowledged += r.readingCount
                case .rejected: listed.rejected += r.readingCount
                case .failed: listed.failed += r.readingCount
                }
                for id in Set(r.readingIDs) {
                    if let other = sentBy[id], other != p.file {
                        throw .readingTwice(scenario: reference.scenario, reading: id, file: p.file, other: other)
                    }
                    sentBy[id] = p.file
                }
            }
            let counted = countsAsJudged(listed, record.merging)
            let judged = (record.acknowledged, record.rejected, record.failed)
            if counted != judged {
                throw .counts(file: p.file, scenario: reference.scenario, listed: counted, judged: judged)
            }
        }
    }

    /// The counts a verdict gives for these listed readings: MQTT readings the SUT never confirmed
    /// count as failed (when it confirms them), and BLE-carried readings are added from the link.
    static func countsAsJudged(
        _ listed: (acknowledged: Int, rejected: Int, failed: Int),
        _ mergeInputs: MergeInputs
    ) -> (Int, Int, Int) {
        var (acknowledged, rejected, failed) = listed
        if let mqtt = mergeInputs.mqtt, mqtt.sutConfirms {
            (acknowledged, failed) = (acknowledged - mqtt.unconfirmedCount, failed + mqtt.unconfirmedCount)
        }
        if let ble = mergeInputs.ble { (acknowledged, failed) = (acknowledged + ble.sent, failed + ble.notSent) }
        return (acknowledged, rejected, failed)
    }
}
