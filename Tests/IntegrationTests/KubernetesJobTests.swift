import Foundation
import XCTest

/// `ci/k8s/`: the manifests validate against the Kubernetes schema (kubernetes-validate, strict),
/// and the Indexed Job's own command, run here once per index with the environment Kubernetes gives
/// its pods (`JOB_COMPLETION_INDEX`, the ConfigMap's values in `$(VAR)`s, the shared volume as a
/// folder), followed by the merge job's command, gives the load scenario's unsharded verdict.
final class KubernetesJobTests: XCTestCase {
    static let kubernetesVersion = "1.30.0"
    var directory = ""
    let root = TestSupport.repositoryRoot
    var manifests: [String] {
        ["results-pvc.yaml", "run-config.yaml", "shards-job.yaml", "merge-job.yaml"].map { root + "/ci/k8s/" + $0 }
    }

    override func setUpWithError() throws { directory = TestSupport.temporaryDirectory("k8s") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: directory) }

    /// The test environment's python with kubernetes-validate (pinned as ci/setup-debian.sh pins it).
    func python() throws -> String {
        let python = root + "/.venv-test/bin/python"
        if (try? TestSupport.run(python, ["-c", "import kubernetes_validate, yaml"]))?.status != 0 {
            let pip = try TestSupport.run(
                root + "/.venv-test/bin/pip",
                ["install", "-q", "kubernetes-validate==1.37.0"]
            )
            guard pip.status == 0 else { throw XCTSkip("cannot install kubernetes-validate from PyPI: \(pip.err)") }
        }
        return python
    }

    func testManifestsValidateAgainstTheKubernetesSchema() throws {
        let tool = URL(fileURLWithPath: try python()).deletingLastPathComponent().path + "/kubernetes-validate"
        let ran = try TestSupport.run(tool, ["--strict", "-k", Self.kubernetesVersion] + manifests)
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertEqual(ran.out.components(separatedBy: "passed for resource").count - 1, 4, ran.out)
        // The validator is strict: a misspelled field of the Job fails it.
        let job = try String(contentsOfFile: root + "/ci/k8s/shards-job.yaml", encoding: .utf8)
        XCTAssertTrue(job.contains("completionMode: Indexed"))
        let broken = TestSupport.write(
            job.replacingOccurrences(of: "completionMode: Indexed", with: "completionMod: Indexed"),
            to: directory,
            name: "broken.yaml"
        )
        let refused = try TestSupport.run(tool, ["--strict", "-k", Self.kubernetesVersion, broken])
        XCTAssertNotEqual(refused.status, 0, refused.out)
        XCTAssertTrue((refused.out + refused.err).contains("completionMod"), refused.out + refused.err)
    }

    /// The manifests as JSON objects by name.
    func objects() throws -> [String: [String: Any]] {
        let script =
            "import json, sys, yaml; print(json.dumps({d['metadata']['name']: d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f))}))"
        let ran = try TestSupport.run(try python(), ["-c", script] + manifests)
        XCTAssertEqual(ran.status, 0, ran.err)
        return try JSONSerialization.jsonObject(with: Data(ran.out.utf8)) as? [String: [String: Any]] ?? [:]
    }

    func testTheIndexedJobShardsTheLoadScenarioIntoItsUnshardedVerdict() throws {
        let kubernetes = try objects()
        let config = try XCTUnwrap(kubernetes["vitalsim-run"]?["data"] as? [String: String])
        let spec = try XCTUnwrap(kubernetes["vitalsim-shards"]?["spec"] as? [String: Any])
        XCTAssertEqual(spec["completionMode"] as? String, "Indexed")
        let args = try XCTUnwrap(container(kubernetes["vitalsim-shards"])["args"] as? [String])
        XCTAssertEqual(claims(kubernetes["vitalsim-shards"]), ["vitalsim-results"])
        XCTAssertEqual(claims(kubernetes["vitalsim-merge"]), ["vitalsim-results"])
        XCTAssertNotNil(kubernetes["vitalsim-results"], "the shared volume's claim")
        let shards = try XCTUnwrap(args.firstIndex(of: "--shards").flatMap { Int(args[$0 + 1]) })
        XCTAssertEqual(spec["completions"] as? Int, shards, "--shards must equal the Job's completions")
        XCTAssertEqual(spec["parallelism"] as? Int, shards)
        let suite = try XCTUnwrap(config["suite"])
        XCTAssertTrue(suite.hasPrefix("scenarios/load/"), suite)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + suite), "the ConfigMap's suite: \(suite)")
        // The image's working folder with a ward of 20 patients (the ConfigMap's has 2,500), written by
        // the script that wrote it, and its golden file: the Job's plumbing is tested here, not the load.
        let image = try smallWard()
        // The unsharded run, for reference.
        let whole = try run(["run", image.suite, "--json", directory + "/whole.json"], in: image.folder)
        XCTAssertEqual(whole.status, 0, whole.out)
        // The pods: the Job's arguments with the values Kubernetes puts in, one process per index.
        var values = config.reduce(into: [String: String]()) {
            $0[$1.key.uppercased().replacingOccurrences(of: "-", with: "_")] = $1.value
        }
        values["SUITE"] = image.suite
        values["START_AT"] = String(Int(Date().timeIntervalSince1970) + 5)
        // Four debug-built shards and their four embedded SUTs on this 2-core machine cannot keep the
        // ConfigMap's pace (at --speed 60 their scheduling lag reached 3.9 s and the budgets failed):
        // they send as fast as their SUTs answer, from the same start instant.
        values["SPEED"] = "max"
        let podArgs = args.map { arg in
            values.reduce(arg) { $0.replacingOccurrences(of: "$(\($1.key))", with: $1.value) }
                .replacingOccurrences(of: "/results/", with: directory + "/")
        }
        let pods = try (0..<shards).map { try start(podArgs, index: $0, in: image.folder) }
        for (p, log) in pods {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
        // The merge job's command, in a shell as the job runs it, reading the shared volume.
        let mergeJob = try container(kubernetes["vitalsim-merge"])
        XCTAssertEqual(mergeJob["command"] as? [String], ["sh", "-c"])
        let merge = try XCTUnwrap((mergeJob["args"] as? [String])?.first)
            .replacingOccurrences(of: "vitalsim merge", with: "'\(TestSupport.vitalsimPath)' merge")
            .replacingOccurrences(of: "/results/", with: directory + "/")
        let merged = try run(["-c", merge], executable: "/bin/sh")
        XCTAssertEqual(merged.status, 0, merged.out)
        let expected = try ShardedRunTests.signature(directory + "/whole.json")
        XCTAssertEqual(expected.count, 1)
        ShardedRunTests.assertSame(try ShardedRunTests.signature(directory + "/verdict.json"), expected)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/junit.xml"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/report.html"))
        // Every reading of the run, in the merged request list, once.
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/whole.json")))
            as? [String: Any]
        let counts = ((report?["scenarios"] as? [[String: Any]])?.first?["readings"] as? [String: Int]) ?? [:]
        let listed = try Self.readingsListed(directory + "/requests.jsonl")
        XCTAssertEqual(listed.total, counts.values.reduce(0, +))
        XCTAssertEqual(listed.distinct, listed.total, "a reading listed twice")
    }

    /// How many readings the lines of `vitalsim merge --requests` carry, and how many distinct ids.
    static func readingsListed(_ path: String) throws -> (total: Int, distinct: Int) {
        var ids: Set<String> = []
        var total = 0
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            for run in request["readings"] as? [String] ?? [] {
                let slash = run.lastIndex(of: "/") ?? run.endIndex
                let parts = run[run.index(after: slash)...].split(separator: "+")
                let (first, count) = (Int(parts.first ?? "") ?? 0, parts.count > 1 ? Int(parts[1]) ?? 0 : 1)
                for n in first..<first + count { ids.insert("\(run[..<slash])/\(n)") }
                total += count
            }
            for other in request["others"] as? [String] ?? [] {
                ids.insert(other)
                total += 1
            }
        }
        return (total, ids.count)
    }

    /// The first container of a Job's pod.
    func container(_ job: [String: Any]?) throws -> [String: Any] {
        let pod = ((job?["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any]
        return try XCTUnwrap((pod?["containers"] as? [[String: Any]])?.first)
    }

    /// The persistent volume claims a Job's pod mounts.
    func claims(_ job: [String: Any]?) -> [String] {
        let pod = ((job?["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any]
        return (pod?["volumes"] as? [[String: Any]] ?? []).compactMap {
            ($0["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String
        }
    }

    /// A working folder laid out as the image's: `scenarios/load/` with a 20-patient ward from
    /// `ci/load-scenario.py` (the ConfigMap's ward has 2,500) and `golden/` with its recorded golden file.
    func smallWard() throws -> (folder: String, suite: String) {
        let folder = directory + "/image"
        let suite = "scenarios/load/ward-20-patients.yaml"
        try FileManager.default.createDirectory(atPath: folder + "/scenarios/load", withIntermediateDirectories: true)
        let script = try TestSupport.run(
            "python3",
            [root + "/ci/load-scenario.py", "20", "2h", folder + "/" + suite, "ward-20-patients"]
        )
        XCTAssertEqual(script.status, 0, script.err)
        let record = try TestSupport.vitalsim(
            ["record", folder + "/" + suite, "--golden-dir", folder + "/golden"],
            in: directory,
            environment: ["CI": nil]
        )
        XCTAssertEqual(record.status, 0, record.out + record.err)
        return (folder, suite)
    }

    /// Runs a command in `folder` (the image's working directory; by default the repository root),
    /// output in a file.
    func run(
        _ args: [String],
        executable: String? = nil,
        in folder: String? = nil
    ) throws -> (
        status: Int32, out: String
    ) {
        let (process, log) = try start(args, index: nil, executable: executable, in: folder)
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// Starts `vitalsim` (or `executable`) as a pod of index `index` would run it.
    func start(
        _ args: [String],
        index: Int?,
        executable: String? = nil,
        in folder: String? = nil
    ) throws -> (
        Process, String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? TestSupport.vitalsimPath)
        process.arguments = args
        process.currentDirectoryURL = URL(fileURLWithPath: folder ?? root)
        var env = ProcessInfo.processInfo.environment
        env["CI"] = "true"
        env["JOB_COMPLETION_INDEX"] = index.map(String.init)
        process.environment = env
        let log = directory + "/\(index.map { "pod-\($0)" } ?? "run-\(UInt32.random(in: 0...UInt32.max))").log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = process.standardOutput
        try process.run()
        return (process, log)
    }
}
