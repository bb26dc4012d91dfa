import Benchmarks
import Foundation
import Transports
import XCTest

/// `HTTPMultiClient` as a task executor: tasks that prefer it run on its event-loop thread before
/// and after every awaited request (no hop to another thread), closing it from such a task does not
/// deadlock, and a task that prefers a closed client still runs.
final class HTTPMultiClientExecutorTests: XCTestCase {
    /// The calling thread's name (Linux keeps 15 characters of it).
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?").trimmingCharacters(
            in: .whitespacesAndNewlines
        )
    }

    /// Runs `body` in a child task that prefers `executor`.
    static func onto(_ executor: any TaskExecutor, _ body: @escaping @Sendable () -> String) async -> String {
        await withTaskGroup(of: String.self) { group in
            group.addTask(executorPreference: executor) { body() }
            return await group.next() ?? ""
        }
    }

    func testTasksPreferringTheClientRunOnItsEventLoop() async throws {
        let dir = TestSupport.temporaryDirectory("multi-executor")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sut = try SUTProcess(
            ["--self-signed", "--http2", "--database", dir + "/e.sqlite", "--rate-limit", "0"],
            directory: dir
        )
        defer { _ = sut.stop() }
        let client = HTTPMultiClient(maxConnections: 4, caFile: sut.caFile)
        let url = sut.base + "/api/v1/observations"
        let seen = await withTaskGroup(of: [String].self) { group in
            for lane in 0..<4 {
                group.addTask(executorPreference: client) {
                    var names = [Self.threadName()]
                    for n in 0..<25 {
                        let reply = try? await client.post(url, body: TransportBenchmark.observation(n, worker: lane))
                        names.append(reply?.status == 200 ? Self.threadName() : "status \(reply?.status ?? -1)")
                    }
                    return names
                }
            }
            var all: [String] = []
            for await names in group { all += names }
            return all
        }
        XCTAssertEqual(seen.count, 4 * 26)
        XCTAssertEqual(
            Set(seen),
            ["vitalsim-http"],
            "every step of every task ran on the event loop, and every request was accepted"
        )

        // A task on the loop closes the client (no deadlock); tasks preferring it then run elsewhere.
        let closed = await Self.onto(client) {
            client.close()
            return Self.threadName()
        }
        XCTAssertEqual(closed, "vitalsim-http")
        let after = await Self.onto(client) { Self.threadName() }
        XCTAssertNotEqual(
            after,
            "vitalsim-http",
            "a closed client's loop has ended; the task ran on the global executor"
        )
        do {
            _ = try await client.post(url, body: TransportBenchmark.observation(0, worker: 9))
            XCTFail("a closed client sends nothing")
        } catch {
            XCTAssertTrue(error.reason.contains("closed"), error.reason)
        }
    }
}
