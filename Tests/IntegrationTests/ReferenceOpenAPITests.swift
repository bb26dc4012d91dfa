import Foundation
import XCTest

/// `docs/openapi.yaml` against the live server, with schemathesis (from PyPI, in the project's
/// test virtual environment): no 5xx, every status, content type, header and body as documented,
/// and every schema-violating request rejected — open, and with device credentials (401/403
/// paths). The same run against `--fault accept-invalid` must fail, so the check can fail.
final class ReferenceOpenAPITests: XCTestCase {
    static let version = "4.32.5"
    static let checks =
        "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection"

    /// Generated requests per operation in the fuzzing phase, beside the coverage phase's, which
    /// reaches each operation's documented boundaries and each kind of schema violation.
    static let examples = "25"

    /// Settings: 413 counts as a rejection of invalid data (`Tests/openapi/schemathesis.toml`).
    static let configuration = ["--config-file", TestSupport.repositoryRoot + "/Tests/openapi/schemathesis.toml"]

    /// `.venv-test/bin/schemathesis`, created (pinned version) when missing.
    static func schemathesis() throws -> String {
        let venv = TestSupport.repositoryRoot + "/.venv-test"
        let tool = venv + "/bin/schemathesis"
        if (try? TestSupport.run(tool, ["--version"]))?.out.contains(version) != true {
            let made = try TestSupport.run("python3", ["-m", "venv", venv])
            XCTAssertEqual(made.status, 0, made.err)
            let pip = try TestSupport.run(venv + "/bin/pip", ["install", "-q", "schemathesis==\(version)"])
            guard pip.status == 0 else { throw XCTSkip("cannot install schemathesis from PyPI: \(pip.err)") }
        }
        return tool
    }

    func run(
        _ serverArguments: [String],
        header: String? = nil,
        seed: Int,
        extra: [String] = []
    ) throws -> (status: Int32, out: String) {
        let tool = try Self.schemathesis()
        let dir = TestSupport.temporaryDirectory("openapi")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--database", dir + "/sut.sqlite", "--rate-limit", "0"] + serverArguments,
            directory: dir
        )
        defer { sut.stop() }
        var args =
            Self.configuration + [
                "run", TestSupport.repositoryRoot + "/docs/openapi.yaml", "--url", sut.base, "--exclude-path",
                "/api/v1/alerts/stream",
                "--checks", Self.checks, "-n", Self.examples, "--seed", String(seed), "--phases",
                "examples,coverage,fuzzing",
                "--no-color",
            ]
        if let header { args += ["-H", header] }
        let ran = try TestSupport.run(tool, args + extra)
        XCTAssertFalse(sut.stderr.contains("Fatal error"), sut.stderr)
        return (ran.status, ran.out + ran.err)
    }

    func testLiveServerConformsToTheSpecification() throws {
        let open = try run([], seed: 1)
        XCTAssertEqual(open.status, 0, open.out)
        XCTAssertTrue(open.out.contains("passed") && !open.out.contains("failed"), open.out)
    }

    func testWithDeviceCredentials() throws {
        // --dev: schemathesis posts with patient 501's device token, for other patients too (403), and reads alerts
        // with it (403).
        let dir = TestSupport.temporaryDirectory("openapi-dev")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tool = try Self.schemathesis()
        let sut = try SUTProcess(["--dev", "--rate-limit", "0"], directory: dir)
        defer { sut.stop() }
        let token = try XCTUnwrap(sut.deviceTokens["501"])
        let ran = try TestSupport.run(
            tool,
            Self.configuration + [
                "run", TestSupport.repositoryRoot + "/docs/openapi.yaml", "--url", sut.base, "--exclude-path",
                "/api/v1/alerts/stream",
                "--checks", Self.checks, "-n", Self.examples, "--seed", "2", "--phases", "examples,coverage,fuzzing",
                "--no-color",
                "-H", "Authorization: Bearer \(token)",
            ]
        )
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        XCTAssertTrue(sut.stderr.isEmpty || !sut.stderr.contains("Fatal error"), sut.stderr)
    }

    func testTheCheckCatchesAServerThatAcceptsInvalidPayloads() throws {
        // The first failure is the finding: schemathesis stops there.
        let faulty = try run(["--fault", "accept-invalid"], seed: 1, extra: ["--max-failures", "1"])
        XCTAssertNotEqual(faulty.status, 0)
        XCTAssertTrue(faulty.out.contains("Schema-violating request accepted"), faulty.out)
    }
}
