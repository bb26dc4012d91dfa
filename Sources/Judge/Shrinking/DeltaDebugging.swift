/// Zeller and Hildebrandt's ddmin ("Simplifying and Isolating Failure-Inducing Input", IEEE TSE
/// 28(2), 2002): the smallest subset of a failing input's parts, found by testing subsets and
/// complements of ever finer partitions, that still fails. The result is 1-minimal: removing any
/// single part of it makes the failure go away (or the test could not be run).
package enum DeltaDebugging {
    /// The parts of `items` (in their order) that still make `fails` true. `fails` is called on
    /// subsets only, never twice with the same subset; it must be true for `items` itself. An empty
    /// set is tried first, so parts the failure does not need at all cost one test.
    /// - Parameter fails: whether the input made of these parts still fails the same way; false
    ///   also when it cannot be tested (an inconsistent input, a budget spent).
    package static func minimize<Item>(_ items: [Item], fails: ([Item]) async -> Bool) async -> [Item] {
        var current = Array(items.indices)
        var tested: [[Int]: Bool] = [:]
        func test(_ subset: [Int]) async -> Bool {
            if let known = tested[subset] { return known }
            let result = await fails(subset.map { items[$0] })
            tested[subset] = result
            return result
        }
        if current.isEmpty { return [] }
        if await test([]) { return [] }
        var granularity = 2
        while current.count >= 2 {
            let chunks = partition(current, into: granularity)
            if let subset = await firstFailing(chunks, test) {
                current = subset
                granularity = 2
                continue
            }
            let complements = chunks.count > 2 ? chunks.map { chunk in current.filter { !chunk.contains($0) } } : []
            if let complement = await firstFailing(complements, test) {
                current = complement
                granularity = max(granularity - 1, 2)
                continue
            }
            if granularity >= current.count { break }
            granularity = min(current.count, granularity * 2)
        }
        return current.map { items[$0] }
    }

    static func firstFailing(_ candidates: [[Int]], _ test: ([Int]) async -> Bool) async -> [Int]? {
        for c in candidates where await test(c) { return c }
        return nil
    }

    /// `indices` cut into `n` consecutive chunks of near-equal size.
    static func partition(_ indices: [Int], into n: Int) -> [[Int]] {
        var chunks: [[Int]] = []
        var start = 0
        for i in 0..<n {
            let end = start + (indices.count - start) / (n - i)
            if end > start { chunks.append(Array(indices[start..<end])) }
            start = end
        }
        return chunks
    }
}
