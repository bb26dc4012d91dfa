/// The minimum-cost assignment of rows to columns of a square cost matrix (the Hungarian method
/// with potentials, O(n³)); deterministic for a given matrix.
enum MinimumCostAssignment {
    /// For each row, the column assigned to it; every column is used once.
    static func solve(_ cost: [[Int64]]) -> [Int] {
        let n = cost.count
        guard n > 0 else { return [] }
        // 1-based arrays as in the textbook formulation; column 0 is a sentinel.
        var u = [Int64](repeating: 0, count: n + 1)
        var v = [Int64](repeating: 0, count: n + 1)
        var rowOfColumn = [Int](repeating: 0, count: n + 1)
        var way = [Int](repeating: 0, count: n + 1)
        for row in 1...n {
            rowOfColumn[0] = row
            var column = 0
            var minimum = [Int64](repeating: .max, count: n + 1)
            var used = [Bool](repeating: false, count: n + 1)
            repeat {
                used[column] = true
                let r = rowOfColumn[column]
                var delta = Int64.max
                var next = 0
                for j in 1...n where !used[j] {
                    let reduced = cost[r - 1][j - 1] - u[r] - v[j]
                    if reduced < minimum[j] {
                        minimum[j] = reduced
                        way[j] = column
                    }
                    if minimum[j] < delta {
                        delta = minimum[j]
                        next = j
                    }
                }
                for j in 0...n {
                    if used[j] {
                        u[rowOfColumn[j]] += delta
                        v[j] -= delta
                    } else {
                        minimum[j] -= delta
                    }
                }
                column = next
            } while rowOfColumn[column] != 0
            repeat {
                let previous = way[column]
                rowOfColumn[column] = rowOfColumn[previous]
                column = previous
            } while column != 0
        }
        var columnOfRow = [Int](repeating: 0, count: n)
        for j in 1...n where rowOfColumn[j] > 0 { columnOfRow[rowOfColumn[j] - 1] = j - 1 }
        return columnOfRow
    }
}
