import Foundation

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
