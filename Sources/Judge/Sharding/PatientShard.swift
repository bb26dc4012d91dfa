/// `--shard I/N`: which patients of a suite one shard runs.
package struct PatientShard: Sendable, Equatable {
    /// 1-based.
    package var index: Int
    package var count: Int

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Each scenario's patients that this shard runs: the suite's patients counted in scenario-file
    /// order, then patient order within the file, the k-th (from 0) going to shard k mod N + 1. Every
    /// shard computes the same split from the suite alone, and each patient's traffic does not
    /// depend on which other patients run beside it (its physiology is seeded by its own id, its
    /// batches are its own devices'), so a patient sends the same requests sharded or not.
    package func patients(of scenarios: [[String]]) -> [[String]] {
        var k = 0
        return scenarios.map { ids in
            ids.filter { _ in
                defer { k += 1 }
                return k % count == index - 1
            }
        }
    }

    /// Whether this shard judges the scenario's alerts of patient `id` (given `ran`, the patients it
    /// runs, and `all`, the scenario's): its own patients', and those of a patient the scenario does
    /// not have (a SUT naming the wrong patient) in the shard that runs the scenario's first patient.
    package static func keeps(_ id: String, ran: Set<String>, all: Set<String>, first: String?) -> Bool {
        ran.contains(id) || (!all.contains(id) && first.map(ran.contains) == true)
    }
}
