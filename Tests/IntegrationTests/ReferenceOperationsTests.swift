import Foundation
import XCTest

/// Operating the reference SUT: HTTPS (self-signed and operator-supplied certificates, verified by
/// curl), graceful SIGTERM with open streams and requests in flight,
/// a credentials file, logs free of health data, Prometheus metrics.
final class ReferenceOperationsTests: XCTestCase {
    var directory = ""
    override func setUp() { directory = TestSupport.temporaryDirectory("ops") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testSelfSignedHTTPSIsVerifiedWithItsCA() throws {
        let sut = try SUTProcess(["--self-signed", "--database", directory + "/sut.sqlite"], directory: directory)
        defer { XCTAssertEqual(sut.stop(), 0) }
        XCTAssertTrue(sut.base.hasPrefix("https://127.0.0.1:"), sut.base)
        XCTAssertNotNil(sut.caFile)
        XCTAssertEqual(try sut.curl("GET", "/healthz").status, 200, "verified against the printed CA")
        let unverified = try TestSupport.run("curl", ["-s", "-o", "/dev/null", sut.base + "/healthz"])
        XCTAssertEqual(unverified.status, 60, "without the CA the certificate is not trusted")
        // Keep-alive: two requests on one connection.
        let two = try TestSupport.run(
            "curl",
            ["-s", "-v", "--cacert", sut.caFile!, sut.base + "/healthz", sut.base + "/healthz"]
        )
        XCTAssertTrue(two.err.contains("Re-using existing connection") || two.err.contains("Reusing existing"), two.err)
    }

    func testOperatorCertificateAndKey() throws {
        let key = directory + "/key.pem"
        let cert = directory + "/cert.pem"
        let ran = try TestSupport.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                "-out", cert,
                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ]
        )
        XCTAssertEqual(ran.status, 0, ran.err)
        let sut = try SUTProcess(
            ["--tls-cert", cert, "--tls-key", key, "--database", directory + "/sut.sqlite"],
            directory: directory
        )
        defer { sut.stop() }
        let ok = try TestSupport.run(
            "curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", cert, sut.base + "/healthz"]
        )
        XCTAssertEqual(ok.out, "200")
        // A missing key file is an infrastructure error with the path in the message.
        let bad = try TestSupport.run(
            TestSupport.vitalsimPath,
            [
                "serve", "--port", "0", "--tls-cert", cert, "--tls-key", directory + "/nope.pem", "--database",
                directory + "/x.sqlite",
            ]
        )
        XCTAssertEqual(bad.status, 3)
        XCTAssertTrue(bad.err.contains("nope.pem"), bad.err)
    }

    func testSIGTERMDrainsInFlightRequestsAndStreams() throws {
        let sut = try SUTProcess(["--database", directory + "/sut.sqlite", "--rate-limit", "0"], directory: directory)
        let sse = Process()
        sse.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        sse.arguments = ["-s", "-N", sut.base + "/api/v1/alerts/stream"]
        sse.standardOutput = FileHandle.nullDevice
        try sse.run()
        let script = """
            for c in 0 1 2; do
              ( i=0
                while [ $i -lt 400 ]; do
                  code=$(curl -s -o /dev/null -w '%{http_code}' --data-binary \
                    "{\\"readingId\\":\\"t$c-$i\\",\\"patientId\\":\\"t$c\\",\\"deviceId\\":\\"hr\\",\\"kind\\":\\"heart-rate\\",\\"value\\":70,\\"unit\\":\\"/min\\",\\"timestamp\\":\\"2024-11-07T08:00:00Z\\"}" \
                    "$1/api/v1/observations")
                  echo "$code" >> "$2/codes"
                  [ "$code" = "000" ] && break
                  i=$((i + 1))
                done ) &
            done
            wait
            """
        let path = TestSupport.write(script, to: directory, name: "load.sh")
        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/bin/bash")
        load.arguments = [path, sut.base, directory]
        try load.run()
        var codes: [Substring] = []
        let deadline = Date(timeIntervalSinceNow: 20)
        while codes.count < 60, Date() < deadline {
            usleep(100_000)
            codes = ((try? String(contentsOfFile: directory + "/codes", encoding: .utf8)) ?? "").split(separator: "\n")
        }
        XCTAssertEqual(
            sut.stop(),
            0,
            "SIGTERM with an open SSE stream and requests in flight exits cleanly: \(sut.stderr)"
        )
        load.waitUntilExit()
        sse.waitUntilExit()
        codes = ((try? String(contentsOfFile: directory + "/codes", encoding: .utf8)) ?? "").split(separator: "\n")
        XCTAssertGreaterThanOrEqual(codes.count, 60)
        XCTAssertEqual(
            codes.filter { $0 != "200" && $0 != "000" },
            [],
            "no request failed with an error status while draining"
        )
        XCTAssertEqual(sse.terminationStatus, 0, "the SSE stream was closed by the server, not cut")
    }

    func testCredentialsFileAndLogsWithoutHealthData() throws {
        let file = TestSupport.write(
            """
            devices:
              - token: device-token-0123456789
                patient: "zz-patient-9"
                device: strap
            readers:
              - token: reader-token-0123456789
            """,
            to: directory,
            name: "creds.yaml"
        )
        let sut = try SUTProcess(
            ["--credentials", file, "--log-level", "debug", "--database", directory + "/sut.sqlite"],
            directory: directory
        )
        let body = #"{"userId": "zz-patient-9", "timestamp": "2024-11-07T12:34:58Z", "heartRate": 187}"#
        XCTAssertEqual(
            try sut.curl("POST", "/api/iot-heart-rate", body: body, token: "device-token-0123456789").status,
            200
        )
        let apiKey = try sut.curl(
            "POST",
            "/api/iot-heart-rate",
            body: body.replacingOccurrences(of: "12:34:58", with: "12:35:58"),
            extra: ["-H", "X-API-Key: device-token-0123456789"]
        )
        XCTAssertEqual(apiKey.status, 200, "the token also works as an API key")
        XCTAssertEqual(
            try sut.curl(
                "POST",
                "/api/iot-heart-rate",
                body: body.replacingOccurrences(of: "zz-patient-9", with: "501"),
                token: "device-token-0123456789"
            ).status,
            403
        )
        XCTAssertEqual(try sut.curl("GET", "/api/v1/alerts", token: "reader-token-0123456789").status, 200)
        XCTAssertEqual(try sut.curl("GET", "/api/v1/alerts", token: "device-token-0123456789").status, 403)
        XCTAssertEqual(sut.stop(), 0)
        let log = sut.stderr
        XCTAssertTrue(log.contains("route"), "requests are logged at debug level: \(log)")
        for secret in ["zz-patient-9", "device-token-0123456789", "reader-token-0123456789"] {
            XCTAssertFalse(log.contains(secret), "the log leaks \(secret): \(log)")
        }
        // The heart rate as a value of its own (request ids are random hex and may contain the digits).
        XCTAssertNil(
            log.range(of: "(?<![0-9A-Za-z.])187(?![0-9A-Za-z])", options: .regularExpression),
            "the log leaks 187: \(log)"
        )

        // Errors in a credentials file name the file, line and field.
        let bad = TestSupport.write(
            "devices:\n  - token: short\n    patient: \"1\"\n    device: d\n",
            to: directory,
            name: "bad.yaml"
        )
        let ran = try TestSupport.run(TestSupport.vitalsimPath, ["serve", "--port", "0", "--credentials", bad])
        XCTAssertEqual(ran.status, 2)
        XCTAssertTrue(
            ran.err.contains("bad.yaml:2") && ran.err.contains("devices[0].token") && ran.err.contains("16 characters"),
            ran.err
        )
    }
}
