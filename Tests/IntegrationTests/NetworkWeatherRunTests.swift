import Foundation
import LiveHarness
import XCTest

/// `vitalsim run --network`: the devices' requests through a proxy with latency, loss, resets and
/// partitions. A reading whose answer a reset cut off is sent again, so the SUT must keep it once:
/// the reference SUT does, its `store-retries` mode does not and fails `stored-twice`.
final class NetworkWeatherRunTests: XCTestCase {
    var directory = ""

    override func setUp() { directory = TestSupport.temporaryDirectory("weather") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The proxy on a real socket in front of a tiny echo server: latency added each way, resets
    /// counted and felt by the client, bytes unchanged.
    func testTheProxyDelaysAndResetsAndKeepsTheBytes() throws {
        let echo = Process()
        echo.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import socket, threading
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
            print(s.getsockname()[1], flush=True)
            def serve(c):
                while True:
                    d = c.recv(65536)
                    if not d: break
                    c.sendall(d)
            while True:
                c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
            """
        echo.arguments = ["python3", "-c", script]
        let out = Pipe()
        echo.standardOutput = out
        try echo.run()
        defer {
            echo.terminate()
            echo.waitUntilExit()
        }
        let port = try XCTUnwrap(
            Int(
                String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
            )
        )
        // Through a 50 ms network: each round trip at least 100 ms, every byte back as sent.
        let slow = try WeatherProxy(try NetworkWeather.parse("latency=50ms"), upstream: "127.0.0.1", port: port)
        defer { slow.stop() }
        let client = """
            import socket, sys, time
            c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            times = []
            for i in range(5):
                t = time.monotonic(); c.sendall(b"ping %d" % i); back = c.recv(100); times.append(time.monotonic() - t)
                assert back == b"ping %d" % i, back
            print(min(times))
            """
        let r = try TestSupport.run("python3", ["-c", client, String(slow.port)])
        XCTAssertEqual(r.status, 0, r.err)
        let fastest = try XCTUnwrap(Double(r.out.trimmingCharacters(in: .whitespacesAndNewlines)), r.out)
        XCTAssertGreaterThanOrEqual(fastest, 0.1, "two 50 ms legs each round trip")
        XCTAssertEqual(slow.tally.chunks, 10)
        // Every answer cut off: the client's connection is reset, and the proxy counts it.
        let cut = try WeatherProxy(try NetworkWeather.parse("resets=100%"), upstream: "127.0.0.1", port: port)
        defer { cut.stop() }
        let reset = try TestSupport.run("python3", ["-c", client, String(cut.port)])
        XCTAssertNotEqual(reset.status, 0, "the client saw its connection cut: \(reset.out)")
        XCTAssertEqual(cut.tally.resets, 1)
    }

    func run(_ network: String, _ extra: [String] = []) throws -> (status: Int32, out: String, err: String) {
        let scenario = TestSupport.repositoryRoot + "/scenarios/core/t1d-nocturnal-hypoglycemia.yaml"
        let golden = TestSupport.repositoryRoot + "/golden"
        return try TestSupport.vitalsim(
            ["run", scenario, "--golden-dir", golden, "--network", network] + extra,
            in: directory,
            environment: ["CI": "true"]
        )
    }

    /// A core scenario under the 4G preset: the reference SUT passes it; the mode that stores a
    /// reading sent again once more fails `stored-twice`. With resets five times as frequent, the
    /// requests whose answers were cut off are sent again and still kept once.
    func testACoreScenarioUnder4GPassesAndRetriesStoredTwiceFail() throws {
        let good = try run("4g")
        XCTAssertEqual(good.status, 0, good.out + good.err)
        XCTAssertTrue(good.err.contains("network 4g: latency 40 ms ± 20 ms"), good.err)
        XCTAssertTrue(good.out.contains("network: network 4g"), "the report says what was tested: \(good.out)")
        let twice = try run("4g", ["--sut-fault", "store-retries"])
        XCTAssertEqual(twice.status, 1, twice.out + twice.err)
        XCTAssertTrue(twice.out.contains("stored-twice stored readings of patient 504 held once"), twice.out)
        // 156 requests at 10 %: no reset at all has a chance of 1 in 10^7.
        let stormy = try run("4g,resets=10%")
        XCTAssertEqual(stormy.status, 0, stormy.out + stormy.err)
        XCTAssertTrue(stormy.out.contains("no answer ×"), "resets cut answers off: \(stormy.out)")
        XCTAssertTrue(stormy.out.contains("PASS t1d-nocturnal-hypoglycemia"), stormy.out)
    }
}
