import Foundation
import Locking
import Transports
import XCTest

/// The window that bounds pipelined MQTT publishes: never more than its limit outstanding, places
/// handed over as acknowledgements arrive from another thread, and drain waiting for the last one.
final class SendWindowTests: XCTestCase {
    func testLimitIsNeverExceededAndDrainWaitsForTheLast() async {
        let window = SendWindow(limit: 4)
        let outstanding = Locked((now: 0, peak: 0, acknowledged: 0))
        let queue = DispatchQueue(label: "acks")
        for _ in 0..<200 {
            await window.acquire()
            outstanding.withLock { outstandingCount in
                outstandingCount.now += 1
                outstandingCount.peak = max(outstandingCount.peak, outstandingCount.now)
            }
            // Acknowledged later, on another thread, as libmosquitto's network thread does.
            queue.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...300))) {
                outstanding.withLock { outstandingCount in
                    outstandingCount.now -= 1
                    outstandingCount.acknowledged += 1
                }
                window.release()
            }
        }
        await window.drain()
        let outstandingCount = outstanding.withLock { $0 }
        XCTAssertEqual(outstandingCount.acknowledged, 200, "drain returned before every acknowledgement")
        XCTAssertEqual(outstandingCount.now, 0)
        XCTAssertLessThanOrEqual(outstandingCount.peak, 4)
        XCTAssertGreaterThan(outstandingCount.peak, 1, "sends were pipelined, not one at a time")
    }

    func testABatchingWindowWakesItsSenderOnlyOnceItHasRoomForABatch() async {
        let window = SendWindow(limit: 8, resumeAt: 4)
        for _ in 0..<8 { await window.acquire() }
        let woke = Locked<[Int]>([])
        let sender = Task {
            await window.acquire()
            woke.withLock { $0.append(1) }
        }
        // Three acknowledgements leave 5 outstanding: above resumeAt, the sender waits (whether it
        // asked before or after them).
        for _ in 0..<3 { window.release() }
        try? await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(woke.withLock { $0 }, [])
        window.release()  // 4 outstanding: the sender gets its place
        await sender.value
        XCTAssertEqual(woke.withLock { $0 }, [1])
        for _ in 0..<3 { await window.acquire() }  // 4 + 1 + 3 = 8 without waiting
        for _ in 0..<8 { window.release() }
        await window.drain()
    }

    func testDrainOfAnIdleWindowReturnsAtOnce() async {
        let window = SendWindow(limit: 2)
        await window.drain()
        await window.acquire()
        window.release()
        await window.drain()
    }
}
