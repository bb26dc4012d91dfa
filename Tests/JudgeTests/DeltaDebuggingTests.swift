import Judge
import XCTest

/// ddmin on inputs whose failure cause is known: the result is that cause, 1-minimal, found without
/// testing any subset twice.
final class DeltaDebuggingTests: XCTestCase {
    func testFindsTheTwoPartsThatTogetherFail() async {
        var tests: [[Int]] = []
        let result = await DeltaDebugging.minimize(Array(0..<40)) { subset in
            tests.append(subset)
            return subset.contains(7) && subset.contains(31)
        }
        XCTAssertEqual(result, [7, 31])
        XCTAssertEqual(Set(tests.map { $0 }).count, tests.count, "no subset tested twice")
        XCTAssertLessThan(tests.count, 60, "ddmin needs O(k log n) tests for k = 2 causes")
    }

    func testKeepsNothingWhenTheFailureNeedsNothing() async {
        var calls = 0
        let result = await DeltaDebugging.minimize(["a", "b", "c"]) { _ in
            calls += 1
            return true
        }
        XCTAssertEqual(result, [])
        XCTAssertEqual(calls, 1, "the empty set is tried first")
    }

    func testResultIsOneMinimal() async {
        // Fails while at least three of the multiples of 5 are present: any three of them are minimal.
        let fails: ([Int]) -> Bool = { $0.filter { $0 % 5 == 0 }.count >= 3 }
        let result = await DeltaDebugging.minimize(Array(0..<30)) { fails($0) }
        XCTAssertTrue(fails(result))
        XCTAssertEqual(result.count, 3)
        for i in result.indices {
            var less = result
            less.remove(at: i)
            XCTAssertFalse(fails(less), "removing \(result[i]) must make it pass")
        }
    }

    func testATestThatCannotRunCountsAsPassing() async {
        // Subsets holding 3 without 2 are inconsistent (like a timeline entry without its device).
        let result = await DeltaDebugging.minimize(Array(0..<8)) { subset in
            if subset.contains(3) && !subset.contains(2) { return false }
            return subset.contains(3)
        }
        XCTAssertEqual(result, [2, 3])
    }
}
