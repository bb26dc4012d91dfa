import Foundation
import FuzzTargets
import XCTest

/// The seed corpus of `ci/fuzz.sh` stays meaningful: every seed is a valid input of its target
/// (a seed the code refuses would only teach the fuzzer the error path), and replaying it through
/// the targets without libFuzzer finds nothing.
final class FuzzCorpusTests: XCTestCase {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func files(_ folder: String) throws -> [URL] {
        let dir = root.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil).filter {
            !$0.hasDirectoryPath
        }
        .sorted { $0.path < $1.path }
    }

    func accepted(_ target: FuzzTarget, _ folder: String) throws -> (accepted: Int, total: Int, refused: [String]) {
        var refused: [String] = []
        let list = try files(folder)
        for url in list where !target.run([UInt8](try Data(contentsOf: url))) { refused.append(url.lastPathComponent) }
        return (list.count - refused.count, list.count, refused)
    }

    func testEverySeedIsAValidInput() throws {
        let targets = [
            (FuzzTarget.gatt, "Fuzz/corpus/gatt"), (.sutJSON, "Fuzz/corpus/sut-json"), (.scenario, "scenarios/core"),
            (.trace, "Fuzz/corpus/trace"),
        ]
        for (target, folder) in targets {
            let r = try accepted(target, folder)
            XCTAssertGreaterThan(r.total, 5, folder)
            XCTAssertEqual(r.refused, [], "\(target.rawValue) refuses seeds of \(folder)")
        }
        let golden = try files("golden").filter { $0.pathExtension == "yaml" }
        for url in golden {
            XCTAssertTrue(FuzzTarget.golden.run([UInt8](try Data(contentsOf: url))), url.lastPathComponent)
        }
        // Raw GATT over MQTT: the values that carry a vital sign become observations.
        let gatt = try accepted(.sutGATT, "Fuzz/corpus/sut-gatt")
        XCTAssertGreaterThanOrEqual(gatt.accepted, 15, "\(gatt.refused)")
    }

    func testHostileInputsAreRefusedWithoutAFinding() {
        XCTAssertFalse(FuzzTarget.sutJSON.run(Array((String(repeating: "[", count: 100_000)).utf8)))
        XCTAssertFalse(FuzzTarget.gatt.run([0] + [UInt8](repeating: 0x10, count: 600)))
        XCTAssertFalse(FuzzTarget.scenario.run([0xFF, 0xFE]))
        XCTAssertFalse(FuzzTarget.golden.run(Array("a: [".utf8)))
        // A DTD's attribute declarations crash Foundation's XMLParser on Linux; the reader skips the declaration.
        XCTAssertFalse(FuzzTarget.trace.run([6] + Array("<!DOCTYPE a [<!ATTLIST a b CDATA #IMPLIED>]><a/>".utf8)))
        XCTAssertFalse(FuzzTarget.trace.run([6] + Array("<!DOCTYPE a [<!ATTLIST a b CDATA #IMPLIED>".utf8)))
        XCTAssertFalse(FuzzTarget.trace.run([9] + Array("btsnoop".utf8)))
        // Found by ci/fuzz.sh: a record time stamp beyond Int64 overflowed the btsnoop reader.
        let header: [UInt8] = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        let record: [UInt8] =
            [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8) + [0x02]
        XCTAssertFalse(FuzzTarget.trace.run([9] + header + record))
        // Found by ci/fuzz.sh: a second document type declaration after the first.
        let twice = "<!DOCTYPE H ?x?>\n<!DOCTYPE H [\n<!ATTLIST H l CDATA #REQUIRED>\n]>\n<HealthData/>\n"
        XCTAssertFalse(FuzzTarget.trace.run([6] + Array(twice.utf8)))
        XCTAssertFalse(
            FuzzTarget.trace.run([6] + Array("<HealthData>\n<!ATTLIST H l CDATA #IMPLIED>\n</HealthData>".utf8))
        )
    }
}
