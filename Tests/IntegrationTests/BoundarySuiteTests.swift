import Foundation
import XCTest

/// The boundary suite (`scenarios/boundaries/`, scripted readings without measurement error): the
/// reference SUT passes it, and a SUT whose comparisons are off by one (`--sut-fault off-by-one`)
/// fails on exactly the boundary checks of every rule, and on nothing else.
final class BoundarySuiteTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let suite = TestSupport.repositoryRoot + "/scenarios/boundaries/adult-thresholds.yaml"

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("boundaries") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testOffByOneFailsOnEveryBoundaryAndNothingElse() throws {
        let good = try TestSupport.vitalsim(["run", suite, "--golden-dir", golden], in: directory)
        XCTAssertEqual(good.status, 0, good.out + good.err)
        XCTAssertTrue(good.out.contains("PASS adult-thresholds"), good.out)
        let bad = try TestSupport.vitalsim(["run", suite, "--golden-dir", golden, "--sut-fault", "off-by-one"], in: directory)
        XCTAssertEqual(bad.status, 1, bad.out + bad.err)
        let findings = bad.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            $0.hasPrefix("early ") || $0.hasPrefix("missed ") || $0.hasPrefix("spurious ") || $0.hasPrefix("late ")
        }
        // `>` and `<` rules fire one run early (at the threshold itself); fever (`>=`) misses 38.0.
        let expected = [
            "early alert glucose.meter-level2-low patient meter", "missed alert temp.fever patient fever",
            "early alert bp.hypertensive-crisis patient crisis:", "early alert bp.hypertensive-crisis patient crisis #2",
            "spurious unexpected alert spo2.low patient spo2", "spurious unexpected alert hr.bradycardia patient brady",
            "spurious unexpected alert hr.tachycardia patient tachy",
        ]
        for e in expected { XCTAssertTrue(findings.contains { $0.hasPrefix(e) }, "\(e) in:\n" + bad.out) }
        XCTAssertEqual(findings.count, expected.count, "nothing but the boundaries:\n" + findings.joined(separator: "\n"))
    }
}
