/// Group commit: submissions that arrive while a commit is in flight are written together in the
/// next transaction, so durability costs one sync per group rather than per reading. Every
/// submitter resumes only after its batch is committed (or with the storage error).
actor GroupCommitter {
    let storage: any ReadingStorage
    var pending = StorageBatch()
    var waiters: [CheckedContinuation<StorageError?, Never>] = []
    var flushing = false
    /// Counts commits (`vitalsim_storage_commits_total`) and committed readings.
    let metrics: ServerMetrics

    init(storage: any ReadingStorage, metrics: ServerMetrics) {
        self.storage = storage
        self.metrics = metrics
    }

    /// Commits `batch` (possibly with others); an empty batch waits for everything submitted before it.
    func submit(_ batch: StorageBatch) async throws(StorageError) {
        pending.observations += batch.observations
        pending.alerts += batch.alerts
        let failure: StorageError? = await withCheckedContinuation { c in
            waiters.append(c)
            if !flushing {
                flushing = true
                Task { await self.flush() }
            }
        }
        if let failure { throw failure }
    }

    func flush() async {
        while !waiters.isEmpty {
            let batch = pending
            let group = waiters
            pending = StorageBatch()
            waiters = []
            var failure: StorageError?
            if !batch.isEmpty {
                do throws(StorageError) {
                    try await storage.commit(batch)
                    metrics.count("vitalsim_storage_commits_total")
                    metrics.count("vitalsim_storage_committed_readings_total", by: Double(batch.observations.count))
                } catch { failure = error }
            }
            for c in group { c.resume(returning: failure) }
        }
        flushing = false
    }
}
