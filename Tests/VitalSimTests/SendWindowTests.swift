import Foundation
import Harness
import Synchronization
import XCTest

/// The window that bounds pipelined MQTT publishes: never more than its limit outstanding, places
/// handed over as acknowledgements arrive from another thread, and drain waiting for the last one.
final class SendWindowTests: XCTestCase {
    func testLimitIsNeverExceededAndDrainWaitsForTheLast() async {
        let window = SendWindow(limit: 4)
        let outstanding = Mutex((now: 0, peak: 0, acknowledged: 0))
        let queue = DispatchQueue(label: "acks")
        for _ in 0..<200 {
            await window.acquire()
            outstanding.withLock { o in o.now += 1; o.peak = max(o.peak, o.now) }
            // Acknowledged later, on another thread, as libmosquitto's network thread does.
            queue.asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...300))) {
                outstanding.withLock { o in o.now -= 1; o.acknowledged += 1 }
                window.release()
            }
        }
        await window.drain()
        let o = outstanding.withLock { $0 }
        XCTAssertEqual(o.acknowledged, 200, "drain returned before every acknowledgement")
        XCTAssertEqual(o.now, 0)
        XCTAssertLessThanOrEqual(o.peak, 4)
        XCTAssertGreaterThan(o.peak, 1, "sends were pipelined, not one at a time")
    }

    func testDrainOfAnIdleWindowReturnsAtOnce() async {
        let window = SendWindow(limit: 2)
        await window.drain()
        await window.acquire()
        window.release()
        await window.drain()
    }
}
