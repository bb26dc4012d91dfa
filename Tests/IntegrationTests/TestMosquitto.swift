import Foundation
import XCTest

extension TestSupport {
    /// A mosquitto broker on a free port of 127.0.0.1 with `settings` (mosquitto.conf lines after
    /// the listener), started in `directory` and listening when this returns; the caller stops it.
    static func mosquitto(_ settings: String, in directory: String) throws -> (process: Process, port: UInt16) {
        let port = freePorts(1)[0]
        let conf = write("listener \(port) 127.0.0.1\n" + settings, to: directory, name: "mosquitto.conf")
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", conf]
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline, try run("bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"]).status != 0 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        return (broker, port)
    }
}

extension XCTestCase {
    /// Publishes `file` at QoS 1 over MQTT 5 with user `properties`, anonymously (`mosquitto_pub`).
    func publish(_ port: String, _ topic: String, file: String, properties: [String: String] = [:]) throws {
        var args = ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-t", topic, "-f", file]
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            args += ["-D", "publish", "user-property", name, value]
        }
        let ran = try TestSupport.run("mosquitto_pub", args)
        XCTAssertEqual(ran.status, 0, ran.err)
    }
}

extension ReferenceDeliveryTests.Listener {
    /// A listener to the reference SUT's refusals and confirmations (`errors/#`, `acks/#`), one
    /// `topic payload` line per message.
    static func replies(port: String, output: String) throws -> ReferenceDeliveryTests.Listener {
        try ReferenceDeliveryTests.Listener(
            "mosquitto_sub",
            ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", "errors/#", "-t", "acks/#", "-F", "%t %p"],
            output: output
        )
    }
}
