import Foundation
import XCTest

/// The boundary suite (`scenarios/boundaries/`, scripted readings without measurement error): the
/// reference SUT passes it, and a SUT whose comparisons are off by one (`--sut-fault off-by-one`)
/// fails on exactly the boundary checks of every rule, and on nothing else.
final class BoundarySuiteTests: XCTestCase {
    var directory = ""
    let golden = TestSupport.repositoryRoot + "/golden"
    let suite = TestSupport.repositoryRoot + "/scenarios/boundaries"

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("boundaries") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testOffByOneFailsOnEveryBoundaryAndNothingElse() throws {
        let good = try TestSupport.vitalsim(["run", suite, "--golden-dir", golden], in: directory)
        XCTAssertEqual(good.status, 0, good.out + good.err)
        XCTAssertTrue(good.out.contains("PASS 4/4 scenario(s)"), good.out)
        // The reference SUT raises as it ingests: a missed alert need not be waited for 30 s.
        let faulty = ["--sut-fault", "off-by-one", "--alert-wait", "2"]
        let bad = try TestSupport.vitalsim(["run", suite, "--golden-dir", golden] + faulty, in: directory)
        XCTAssertEqual(bad.status, 1, bad.out + bad.err)
        let findings = bad.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            $0.hasPrefix("early ") || $0.hasPrefix("missed ") || $0.hasPrefix("spurious ") || $0.hasPrefix("late ")
        }
        // `>` and `<` rules fire one run early (at the threshold itself) or where nothing was
        // expected; `>=` and `<=` rules miss the run at the threshold, or fire one run late.
        let expected = [
            // adult-thresholds
            "early alert glucose.meter-level2-low patient meter", "missed alert temp.fever patient fever",
            "early alert bp.hypertensive-crisis patient crisis:", "early alert bp.hypertensive-crisis patient crisis #2",
            "spurious unexpected alert spo2.low patient spo2", "spurious unexpected alert hr.bradycardia patient brady",
            "spurious unexpected alert hr.tachycardia patient tachy",
            // cgm-thresholds (the ramps down to 66 pass through 70: level 1 at its boundary too)
            "early alert glucose.level1-low patient level1", "early alert glucose.level1-low patient urgent",
            "early alert glucose.level1-low patient level2", "missed alert glucose.urgent-low patient urgent",
            "late alert glucose.urgent-low patient level2", "early alert glucose.level2-low patient level2",
            "early alert glucose.level2-high patient high",
            // copd-infant-thresholds
            "spurious unexpected alert spo2.below-copd-target patient copd", "missed alert temp.fever patient infant",
            "early alert infant.spo2-low patient infant", "early alert infant.spo2-high patient infant",
            "spurious unexpected alert device.low-battery patient battery",
            // stage2-series-thresholds
            "missed alert bp.stage2-sustained patient s140", "missed alert bp.stage2-sustained patient d90",
        ]
        for e in expected { XCTAssertTrue(findings.contains { $0.hasPrefix(e) }, "\(e) in:\n" + bad.out) }
        XCTAssertEqual(findings.count, expected.count, "nothing but the boundaries:\n" + findings.joined(separator: "\n"))
        XCTAssertTrue(bad.out.contains("FAIL 0/4 scenario(s)"), bad.out)
    }
}
