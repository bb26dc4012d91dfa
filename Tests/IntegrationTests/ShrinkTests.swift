import Foundation
import XCTest

/// `vitalsim shrink` as a command against the embedded reference SUT: a passing scenario has
/// nothing to shrink, and a check no failure matches is a usage error listing the failed checks.
/// (The search, the written scenario and its confirmation: `LiveHarnessTests.InProcessShrinkTests`;
/// a whole shrink through the command: `ForeignBackendTests`.)
final class ShrinkTests: XCTestCase {
    var directory = ""
    let root = TestSupport.repositoryRoot

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("shrink") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testAPassingScenarioHasNothingToShrinkAndAnUnknownCheckIsNamed() throws {
        let path = root + "/scenarios/core/adult-tachycardia-episode.yaml"
        let pass = try TestSupport.vitalsim(
            ["shrink", path, "--golden-dir", root + "/golden", "--output", directory],
            in: directory
        )
        XCTAssertEqual(pass.status, 0, pass.out + pass.err)
        XCTAssertTrue(pass.out.contains("every check passes; nothing to shrink"), pass.out)
        let args = [
            "shrink", path, "--golden-dir", root + "/golden", "--sut-fault", "wrong-severity", "--check",
            "no-such-check",
        ]
        let unknown = try TestSupport.vitalsim(args + ["--output", directory], in: directory)
        XCTAssertEqual(unknown.status, 2, unknown.out + unknown.err)
        XCTAssertTrue(unknown.err.contains("no failed check matches --check 'no-such-check'"), unknown.err)
        XCTAssertTrue(unknown.err.contains("wrong-severity alert hr.tachycardia patient"), unknown.err)
    }
}
