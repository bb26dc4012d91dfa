import Foundation

/// Virtual BLE controllers for a run over a real BLE link (`vitalsim run --ble hci` without
/// `--hci`): bumble's `Controller`s on one `LocalLink`, each serving HCI over H4 on a free loopback
/// TCP port — one per simulated device for its peripheral and one per device for the embedded
/// SUT's gateway. bumble comes from the Python virtual environment `ci/setup-debian.sh` creates
/// (`.venv-bumble`), or the interpreter given with `--bumble-python`.
package final class BumbleControllers: Sendable {
    /// The controllers' TCP ports, in order.
    package let ports: [Int]
    let process: Process

    /// The controller script, `python -c SCRIPT PORT…` (bumble.apps.controllers accepts exactly two
    /// controllers; a run needs two per device).
    package static let script = """
        import asyncio, sys
        from bumble.controller import Controller
        from bumble.link import LocalLink
        from bumble.transport import open_transport

        async def main():
            link = LocalLink()
            keep = []
            for i, port in enumerate(sys.argv[1:]):
                t = await open_transport(f"tcp-server:127.0.0.1:{port}")
                keep.append(t)
                Controller(f"C{i}", host_source=t.source, host_sink=t.sink, link=link)
            print("ready", flush=True)
            await asyncio.get_running_loop().create_future()

        asyncio.run(main())
        """

    /// The Python interpreter with bumble: `explicit`, `$VITALSIM_BUMBLE_PYTHON`, or `.venv-bumble/bin/python`
    /// in the working directory or a folder above the `vitalsim` executable.
    package static func python(explicit: String?, executable: String) -> String? {
        if let explicit { return explicit }
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["VITALSIM_BUMBLE_PYTHON"], !env.isEmpty {
            candidates.append(env)
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.venv-bumble/bin/python")
        var dir = (executable as NSString).deletingLastPathComponent
        for _ in 0..<5 {
            candidates.append(dir + "/.venv-bumble/bin/python")
            dir = (dir as NSString).deletingLastPathComponent
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `count` controllers on free loopback ports, on one virtual link, and waits until they listen.
    package convenience init(python: String, count: Int, log: String) throws(HarnessError) {
        var ports: [Int] = []
        while ports.count < count {
            guard let port = LoopbackPort.free() else {
                throw .infrastructure("no free loopback port for a virtual BLE controller")
            }
            if !ports.contains(port) { ports.append(port) }
        }
        try self.init(python: python, ports: ports, log: log)
    }

    /// Starts one controller per port (127.0.0.1), on one virtual link, and waits until they listen.
    package init(python: String, ports: [Int], log: String) throws(HarnessError) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: python)
        child.arguments = ["-c", Self.script] + ports.map(String.init)
        let out = Pipe()
        child.standardOutput = out
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        child.standardError = FileHandle(forWritingAtPath: log)
        do { try ChildProcess.launch(child) } catch {
            throw .infrastructure("cannot start bumble's virtual controllers with \(python): \(error)")
        }
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 60)
        while !text.contains("ready"), child.isRunning, Date() < deadline {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        guard text.contains("ready"), child.isRunning else {
            ChildProcess.stop(child)
            let err = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw .infrastructure("bumble's virtual controllers did not start (\(python)): \(err.suffix(2000))")
        }
        self.ports = ports
        process = child
    }

    /// Stops the controllers.
    package func stop() { ChildProcess.stop(process) }

    /// True while the controllers run.
    package var isRunning: Bool { process.isRunning }
}
