import Foundation
import XCTest

/// The built `vitalsim run` (the hypertensive crisis against the embedded reference SUT, alerts
/// only pushed to the webhook receiver on a fixed port) while another local process attacks the
/// receiver (`Tests/backends/receiver_attack.py`, written without VitalSim's code), at the usual
/// soft and hard limit of 1,024 file descriptors: forged POSTs are refused and counted, never an
/// alert; idle and stalled connections end as refusals, with a verdict, under the memory bound.
final class PushReceiverAttackTests: XCTestCase {
    var directory = ""
    let fields =
        "{id: /alertId, patient: /patientId, rule: /rule, severity: /severity, raised-at: /raisedAt, evidence: /evidence}"

    override func setUp() { directory = TestSupport.temporaryDirectory("receiver-attack") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    struct Ended {
        var status: Int32
        var out: String
        var peak: Int
        var attacker: String
    }

    /// The run with `mode`'s attacker on its receiver port; the run's exit status, output, peak
    /// resident set in bytes, and what the attacker printed.
    func attacked(_ mode: String, faults: [String] = []) throws -> Ended {
        let port = TestSupport.freePorts(1)[0]
        let profile = TestSupport.write(
            "name: webhook-only\nalerts:\n  source: webhook\n  fields: \(fields)\n",
            to: directory,
            name: "webhook.yaml"
        )
        let attacker = Process()
        attacker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        attacker.arguments = [
            "python3", TestSupport.repositoryRoot + "/Tests/backends/receiver_attack.py", mode, "\(port)",
        ]
        let attackLog = directory + "/attack-\(mode)"
        _ = FileManager.default.createFile(atPath: attackLog, contents: nil)
        attacker.standardOutput = FileHandle(forWritingAtPath: attackLog)
        attacker.standardError = attacker.standardOutput
        try attacker.run()
        defer {
            attacker.terminate()
            attacker.waitUntilExit()
        }
        let peakFile = directory + "/peak-\(mode)"
        let script =
            "import resource, subprocess, sys; "
            + "r = subprocess.run(sys.argv[2:], preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))); "
            + "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
            + "sys.exit(r.returncode if r.returncode >= 0 else 128 - r.returncode)"
        let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let ran = try TestSupport.run(
            "python3",
            [
                "-c", script, peakFile, TestSupport.vitalsimPath, "run", crisis, "--golden-dir",
                TestSupport.repositoryRoot + "/golden",
            ]
                + ["--sut", profile, "--webhook-port", "\(port)", "--alert-wait", "5"]
                + faults.flatMap { ["--sut-fault", $0] }
        )
        let peak = (Int((try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? "") ?? 0) * 1024
        let attack = (try? String(contentsOfFile: attackLog, encoding: .utf8)) ?? ""
        print("receiver attack \(mode): exit \(ran.status), peak \(peak >> 20) MiB")
        return Ended(status: ran.status, out: ran.out + ran.err, peak: peak, attacker: attack)
    }

    /// A SUT that raises nothing while another process POSTs the expected alert: once PASS 18/18.
    /// Now exit 3 "no alert arrived", as with no forger, the refused POSTs counted.
    func testForgedAlertsAreRefusedAndNeverJudged() throws {
        let ended = try attacked("forge", faults: ["drop-alerts=1"])
        XCTAssertTrue(ended.attacker.contains("refused 1"), "the forger was answered 401: \(ended.attacker)")
        XCTAssertEqual(ended.status, 3, ended.out)
        XCTAssertTrue(ended.out.contains("no alert arrived on webhook during the run"), ended.out)
        XCTAssertTrue(ended.out.contains("were refused as not the SUT's"), ended.out)
        XCTAssertFalse(ended.out.contains("PASS"), ended.out)
    }

    /// 2,000 connections that never send, at 1,024 descriptors: once SIGILL 10.5 s into the run
    /// (exit 132, no verdict, no report), then, with only a connection cap, the SUT's POSTs queued
    /// behind the idle peers (exit 3). Now a new connection at the cap closes the oldest that never
    /// sent a request: the SUT's alert arrives and the run is judged, under the memory bound.
    func testIdleConnectionsNeitherCrashTheHarnessNorKeepTheSUTOut() throws {
        let ended = try attacked("idle")
        XCTAssertTrue(ended.attacker.contains("attacking"), ended.attacker)
        XCTAssertTrue([0, 1].contains(ended.status), "a verdict: \(ended.out)")
        XCTAssertTrue(ended.out.contains("hypertensive-crisis"), ended.out)
        XCTAssertLessThan(ended.peak, HostileSUTTests.memoryBound, "peak \(ended.peak >> 20) MiB")
    }

    /// 1,500 POSTs stalled after 1 MB of a 2 MB body, each reopened once closed: once 1.9 GB held
    /// to the end. Now at most the connection cap's bodies at once, each refused past 256 KiB or
    /// closed to make room; the run ends by itself under the memory bound. (With a verdict when the
    /// machine accepts faster than the attacker reconnects; on a loaded one the attacker's
    /// reconnections can keep the kernel's accept queue full, and the run ends "no alert arrived".)
    func testStalledBodiesStayUnderTheMemoryBound() throws {
        let ended = try attacked("stalled")
        XCTAssertTrue(ended.attacker.contains("attacking"), ended.attacker)
        XCTAssertTrue(
            [0, 1].contains(ended.status) || ended.out.contains("no alert arrived on webhook"),
            "ended by itself, named: \(ended.out)"
        )
        XCTAssertGreaterThan(ended.peak, 0)
        XCTAssertLessThan(ended.peak, HostileSUTTests.memoryBound, "peak \(ended.peak >> 20) MiB")
    }
}
