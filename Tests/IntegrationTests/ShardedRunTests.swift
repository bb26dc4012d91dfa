import Foundation
import XCTest

/// A suite split over processes by patients (`--shards N` with the index a Kubernetes Indexed Job
/// gives each pod in `JOB_COMPLETION_INDEX`), each shard against its own embedded reference SUT,
/// merged by `vitalsim merge`: the same checks and counts as the unsharded run.
final class ShardedRunTests: XCTestCase {
    var directory = ""
    var core: String { TestSupport.repositoryRoot + "/scenarios/core" }

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("shards") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

    func vitalsim(
        _ args: [String],
        environment: [String: String?] = [:]
    ) throws -> (status: Int32, out: String, err: String) {
        var env = environment
        env["CI"] = "true"
        return try TestSupport.vitalsim(args, in: directory, environment: env)
    }

    /// Four core scenarios in a suite folder of their own: two patients who land in different shards
    /// (heart failure), refused corruptions, MQTT devices, a dropout with backfill. (Every core
    /// scenario's shards are judged in-process: `JudgeTests.ShardMergeTests`, `TrafficTests.ShardTrafficTests`.)
    func suite() throws -> String {
        let folder = directory + "/suite"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in [
            "copd-desaturation", "corrupt-and-duplicate-payloads", "device-dropout-and-backfill",
            "heart-failure-fluid-gain",
        ] {
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/\(name).yaml",
                withDestinationPath: core + "/\(name).yaml"
            )
        }
        return folder
    }

    func testASuiteShardsMergeIntoTheUnshardedVerdict() throws {
        let suite = try suite()
        // Budgets as SHOULD: an exceeded one (under load) warns rather than failing either run.
        let golden = ["--golden-dir", try TestSupport.goldensWithBudgetsAsShould(in: directory)]
        let whole = try vitalsim(
            ["run", suite, "--json", directory + "/whole.json", "--result", directory + "/whole-result.json"] + golden
        )
        XCTAssertEqual(whole.status, 0, whole.out + whole.err)
        let shards = try runShards(3, suite: suite, extra: golden)
        let merged = try vitalsim(
            ["merge"] + shards + [
                "--json", directory + "/merged.json", "--junit", directory + "/merged.xml", "--requests",
                directory + "/merged.jsonl",
            ]
        )
        XCTAssertEqual(merged.status, 0, merged.out + merged.err)
        let expected = try Self.signature(directory + "/whole.json")
        XCTAssertEqual(expected.count, 4)
        Self.assertSame(try Self.signature(directory + "/merged.json"), expected)
        // Heart failure's two patients land in different shards.
        let split = try Self.signature(directory + "/merged.json").filter { $0.contains("heart-failure-fluid-gain") }
        XCTAssertEqual(split.count, 1)
        // The unsharded run's own result, merged alone, is its verdict too.
        let alone = try vitalsim(
            [
                "merge", directory + "/whole-result.json", "--json", directory + "/alone.json", "--requests",
                directory + "/whole.jsonl",
            ]
        )
        XCTAssertEqual(alone.status, 0, alone.err)
        Self.assertSame(try Self.signature(directory + "/alone.json"), expected)
        // Request by request: the shards sent the unsharded run's requests, in its order, answered alike.
        let sent = try Self.requests(directory + "/whole.jsonl")
        XCTAssertGreaterThan(sent.count, 300)
        Self.assertSame(
            [try Self.requests(directory + "/merged.jsonl").joined(separator: "\n")],
            [sent.joined(separator: "\n")]
        )
        let junit = try String(contentsOfFile: directory + "/merged.xml", encoding: .utf8)
        XCTAssertTrue(junit.contains("testsuite name=\"copd-desaturation\""), String(junit.prefix(400)))

        try checkMergeRefusesAnIncompleteRun(shards, suite: suite)
    }

    /// A missing or duplicate shard, or a shard of another run, is an error naming it (exit 2).
    func checkMergeRefusesAnIncompleteRun(_ shards: [String], suite: String) throws {
        let missing = try vitalsim(["merge", shards[0], shards[2]])
        XCTAssertEqual(missing.status, 2, missing.err)
        XCTAssertTrue(missing.err.contains("shard(s) 2/3 missing"), missing.err)
        let twice = try vitalsim(["merge", shards[0], shards[1], shards[2], shards[1]])
        XCTAssertEqual(twice.status, 2, twice.err)
        XCTAssertTrue(twice.err.contains("shard 2/3 is given twice"), twice.err)
        let foreign = try vitalsim(["merge", shards[0], shards[1], directory + "/whole-result.json"])
        XCTAssertEqual(foreign.status, 2, foreign.err)
        XCTAssertTrue(foreign.err.contains("are not shards of one run: their shard counts differ"), foreign.err)
        let garbage = TestSupport.write("{\"format\": 1}", to: directory, name: "garbage.json")
        let unreadable = try vitalsim(["merge", garbage])
        XCTAssertEqual(unreadable.status, 2, unreadable.err)
        XCTAssertTrue(unreadable.err.contains("garbage.json: not a shard result file"), unreadable.err)
        let noIndex = try vitalsim(["run", suite, "--shards", "3"], environment: ["JOB_COMPLETION_INDEX": nil])
        XCTAssertEqual(noIndex.status, 2, noIndex.err)
        XCTAssertTrue(noIndex.err.contains("JOB_COMPLETION_INDEX must be 0...2"), noIndex.err)
    }

    /// Runs `n` shard processes at once, as an Indexed Job's pods (`JOB_COMPLETION_INDEX` 0…n−1) keeping
    /// one start instant; returns their result files.
    func runShards(_ n: Int, suite: String, extra: [String] = []) throws -> [String] {
        let startAt = String(Int(Date().timeIntervalSince1970) + 3)
        var running: [(Process, String)] = []
        for i in 0..<n {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestSupport.vitalsimPath)
            process.arguments =
                [
                    "run", suite, "--shards", String(n), "--start-at", startAt, "--result",
                    directory + "/shard-{shard}.json",
                ] + extra
            var env = ProcessInfo.processInfo.environment
            env["JOB_COMPLETION_INDEX"] = String(i)
            env["CI"] = "true"
            process.environment = env
            let log = directory + "/shard-\(i).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: log)
            process.standardError = process.standardOutput
            try process.run()
            running.append((process, log))
        }
        for (process, log) in running {
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
        return (1...n).map { directory + "/shard-\($0).json" }
    }

    /// Each scenario's checks (kind, name, outcome), reading counts, HTTP versions and latency sample
    /// counts, from a JSON report: what a merged verdict must share with the unsharded one (latencies
    /// themselves differ from run to run).
    static func signature(_ path: String) throws -> [String] {
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let scenarios = report?["scenarios"] as? [[String: Any]] ?? []
        return scenarios.map { s in
            // A latency budget's outcome is the machine's timing in that run (three test processes
            // share two cores), not the merge's: its check is compared by name.
            let checks = (s["checks"] as? [[String: Any]] ?? []).map { c in
                let fields =
                    c["kind"] as? String == "budget"
                    ? ["kind", "name"] : ["kind", "name", "passed", "finding", "skipped"]
                return fields.map { "\(c[$0] ?? "-")" }.joined(separator: "|")
            }
            let latency = (s["latencyMilliseconds"] as? [String: [String: Double]] ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value["count"] ?? -1)" }
            return ["\(s["scenario"] ?? "")", flat(s["readings"]), flat(s["httpVersions"])] + latency + checks
        }.map { $0.joined(separator: "\n") }
    }

    /// Fails naming the first line where two verdicts' signatures differ (they run to thousands of lines).
    static func assertSame(_ got: [String], _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(got.count, expected.count, "scenarios", file: file, line: line)
        for (g, e) in zip(got, expected) where g != e {
            let (gl, el) = (g.split(separator: "\n"), e.split(separator: "\n"))
            let firstDifference = (0..<min(gl.count, el.count)).first { gl[$0] != el[$0] } ?? min(gl.count, el.count)
            let at = { (l: [Substring]) in firstDifference < l.count ? String(l[firstDifference]) : "(end)" }
            XCTFail(
                "\(el.first ?? ""): line \(firstDifference) is '\(at(gl))', unsharded '\(at(el))' (\(gl.count) vs \(el.count) lines)",
                file: file,
                line: line
            )
            return
        }
    }

    /// The lines of `vitalsim merge --requests` without their attempts and errors (which depend on timing).
    static func requests(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            var request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            (request["attempts"], request["error"]) = (nil, nil)
            return flat(request)
        }
    }

    /// A JSON object's members as `key=value` in key order.
    static func flat(_ value: Any?) -> String {
        ((value as? [String: Any]) ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: ","
        )
    }
}

extension ShardedRunTests {
    /// The committed load scenario is what its generator writes (edit the generator, not the file).
    func testTheLoadScenarioIsItsGeneratorsOutput() throws {
        let out = directory + "/ward.yaml"
        let ran = try TestSupport.run(
            "python3",
            [TestSupport.repositoryRoot + "/ci/load-scenario.py", "2500", "2h", out]
        )
        XCTAssertEqual(ran.status, 0, ran.err)
        let committed = try String(
            contentsOfFile: TestSupport.repositoryRoot + "/scenarios/load/ward-2500-patients.yaml",
            encoding: .utf8
        )
        let written = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertEqual(written.count, committed.count)
        XCTAssertTrue(
            written == committed,
            "scenarios/load/ward-2500-patients.yaml differs from ci/load-scenario.py 2500 2h"
        )
        XCTAssertTrue(committed.contains("(10000 devices)"))
    }
}

extension ShardedRunTests {
    /// Two shards against one long-lived SUT (`--target`, the patients' own ids, nothing deleted)
    /// one after the other: the second lists the first one's alert, of a patient of the scenario who
    /// is not its own, and judges only its own patient's (who raises none), so both pass and so does
    /// the merge. The scenario's two patients are adults (the SUT's default profile); only the
    /// first, shard 1's, has an alert.
    func testShardsSharingOneSUTJudgeOnlyTheirOwnPatients() throws {
        let sut = try SUTProcess(["--self-signed", "--database", directory + "/sut.sqlite"], directory: directory)
        defer { sut.stop() }
        let scenario = core + "/heart-failure-fluid-gain.yaml"
        let shared = [
            "--target", sut.base, "--cacert", sut.caFile ?? "", "--golden-dir", TestSupport.repositoryRoot + "/golden",
            "--shards", "2",
            "--result", directory + "/shard-{shard}.json",
        ]
        for index in 0..<2 {
            let ran = try vitalsim(["run", scenario] + shared, environment: ["JOB_COMPLETION_INDEX": String(index)])
            XCTAssertEqual(ran.status, 0, ran.out + ran.err)
            XCTAssertTrue(ran.out.contains("PASS 1/1 scenario(s)"), "shard \(index + 1): " + ran.out)
        }
        // The first shard's patient's alert was still listed when the second shard ran.
        let listed = try sut.alerts().compactMap { $0["patientId"] as? String }
        XCTAssertEqual(listed, ["721"])
        let shards = [directory + "/shard-1.json", directory + "/shard-2.json"]
        var judged: [[String]] = []
        for file in shards {
            let result =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            let parts = result?["scenarios"] as? [[String: Any]] ?? []
            XCTAssertEqual(parts.map { $0["ran"] as? [String] }, [shards[0] == file ? ["721"] : ["722"]], file)
            judged.append(
                parts.flatMap { part in
                    let alerts = (part["verdict"] as? [String: Any])?["alerts"] as? [[String: Any]] ?? []
                    return alerts.compactMap { $0["patientID"] as? String }
                }
            )
        }
        XCTAssertEqual(judged, [["721"], []])
        let merged = try vitalsim(["merge"] + shards)
        XCTAssertEqual(merged.status, 0, merged.out + merged.err)
        XCTAssertTrue(merged.out.contains("PASS 1/1 scenario(s)"), merged.out)
    }
}
