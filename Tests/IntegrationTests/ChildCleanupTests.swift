import Foundation
import XCTest

/// A harness killed mid-run (SIGKILL: no `defer` runs) does not leave its embedded SUT and
/// mosquitto broker running: their watchdogs stop them.
final class ChildCleanupTests: XCTestCase {
    /// The processes whose parent is `pid` (from /proc), with their command names.
    static func children(of pid: Int32) -> [(pid: Int32, name: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> (Int32, String)? in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == pid else { return nil }
            return (child, String(stat[stat.index(after: open)..<close]))
        }
    }

    /// True while `pid` exists and is not a zombie.
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else {
            return false
        }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    func testAKilledHarnessLeavesNoSUTOrBrokerRunning() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
            throw XCTSkip("mosquitto missing: run ci/setup-debian.sh")
        }
        let dir = TestSupport.temporaryDirectory("child-cleanup")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // An MQTT scenario at a slow speed: the harness starts mosquitto and the reference SUT, then sends for minutes.
        let run = Process()
        run.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
        run.arguments = [
            "run", TestSupport.repositoryRoot + "/scenarios/core/copd-desaturation.yaml", "--speed", "10",
            "--golden-dir", TestSupport.repositoryRoot + "/golden",
        ]
        run.standardOutput = FileHandle.nullDevice
        run.standardError = FileHandle.nullDevice
        try run.run()
        var helpers: [(pid: Int32, name: String)] = []
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline, run.isRunning {
            helpers = Self.children(of: run.processIdentifier).filter {
                $0.name == "mosquitto" || $0.name == "vitalsim"
            }
            if helpers.count == 2 { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        XCTAssertEqual(
            helpers.map(\.name).sorted(),
            ["mosquitto", "vitalsim"],
            "the run started the broker and the SUT"
        )
        // Give the SUT a moment to be serving, then kill the harness the way a crash would.
        Thread.sleep(forTimeInterval: 2)
        XCTAssertTrue(run.isRunning)
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        let gone = Date(timeIntervalSinceNow: 15)
        while Date() < gone, helpers.contains(where: { Self.alive($0.pid) }) { Thread.sleep(forTimeInterval: 0.2) }
        let left = helpers.filter { Self.alive($0.pid) }
        for h in left { kill(h.pid, SIGKILL) }
        XCTAssertTrue(left.isEmpty, "still running after the harness died: \(left)")
    }
}
