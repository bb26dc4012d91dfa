import Foundation
import XCTest

/// A SUT that requires a client certificate (`vitalsim serve --self-signed --client-ca self`): the
/// profile's `tls.client-certificate` and `client-key` (or `--client-cert`/`--client-key`) pass; without
/// them the run and `doctor` end with exit 3 saying mutual TLS may be why, never a clinical finding.
final class MutualTLSTests: XCTestCase {
    func testAClientCertificateFromTheProfile() throws {
        let directory = TestSupport.temporaryDirectory("mtls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sut = try SUTProcess(
            ["--self-signed", "--client-ca", "self", "--database", directory + "/sut.sqlite"],
            directory: directory
        )
        defer { sut.stop() }
        let ca = try XCTUnwrap(sut.caFile)
        let (certificate, key) = (try XCTUnwrap(sut.clientCertificate), try XCTUnwrap(sut.clientKey))
        let crisis = TestSupport.repositoryRoot + "/scenarios/core/hypertensive-crisis.yaml"
        let golden = ["--golden-dir", TestSupport.repositoryRoot + "/golden"]
        func vitalsim(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
            try TestSupport.vitalsim(args, in: directory, environment: ["CI": "true"])
        }

        let without = try vitalsim(["run", crisis, "--target", sut.base, "--cacert", ca] + golden)
        XCTAssertEqual(without.status, 3, without.out + without.err)
        XCTAssertTrue(without.err.contains("mutual TLS") && without.err.contains("--client-cert"), without.err)
        XCTAssertFalse(without.out.contains("missed"), without.out)
        let doctor = try vitalsim(["doctor", crisis, "--target", sut.base, "--cacert", ca])
        XCTAssertEqual(doctor.status, 3, doctor.out + doctor.err)
        XCTAssertTrue(doctor.out.contains("✗ reachable") && doctor.out.contains("mutual TLS"), doctor.out)

        let profile = TestSupport.write(
            "name: mtls\nbase-url: \(sut.base)\ntls:\n  ca: \(ca)\n  client-certificate: \(certificate)\n  client-key: \(key)\n",
            to: directory,
            name: "mtls.yaml"
        )
        let ran = try vitalsim(["run", crisis, "--sut", profile, "--observe", "sse"] + golden)
        XCTAssertEqual(ran.status, 0, ran.out + ran.err)
        let flags = try vitalsim([
            "doctor", crisis, "--target", sut.base, "--cacert", ca, "--client-cert", certificate, "--client-key", key,
        ])
        XCTAssertEqual(flags.status, 0, flags.out + flags.err)
        let half = try vitalsim(
            ["run", crisis, "--target", sut.base, "--cacert", ca, "--client-cert", certificate] + golden
        )
        XCTAssertEqual(half.status, 2, half.out + half.err)
        XCTAssertTrue(half.err.contains("--client-cert and --client-key go together"), half.err)
    }
}
