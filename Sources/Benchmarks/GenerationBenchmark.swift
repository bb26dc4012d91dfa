import Bluetooth
import Foundation
import Traffic
import VitalSimCore

/// `vitalsim bench generate`: readings per second for generation + GATT encoding of a synthetic
/// population at default cadences, with the output framed as btsnoop records and written to a sink.
package struct GenerationBenchmark {
    package struct Result: Sendable {
        package var patients: Int
        package var hours: Double
        package var readings: Int
        package var bytes: Int
        package var seconds: Double
        package var peakRSSMegabytes: Double
        package var readingsPerSecond: Double { Double(readings) / seconds }
    }

    package let patients: Int
    package let duration: VirtualDuration
    package let sink: String

    package init(patients: Int, duration: VirtualDuration, sink: String = "/dev/null") {
        self.patients = patients
        self.duration = duration
        self.sink = sink
    }

    /// The benchmark population: every patient wears a heart-rate strap (1 s) and a CGM (5 min), and
    /// has a BP cuff, a glucometer, a spot-check oximeter, a thermometer (4 h), a scale and the
    /// VitalEdge phone bridge (5 min), all at their default cadences.
    package func scenarioYAML() -> String {
        var height = "name: bench\nseed: 42\nduration: \(duration)\npatients:\n"
        for i in 0..<patients {
            height += "  - id: \"b\(i)\"\n    profile: \(i % 2 == 0 ? "adult" : "diabetic-cgm")\n    devices:\n"
            for (t, short) in [
                ("heart-rate-strap", "hrm"), ("cgm", "cgm"), ("bp-cuff", "bp"), ("glucometer", "bgm"),
                ("pulse-oximeter", "oxi"),
                ("thermometer", "tmp"), ("weight-scale", "wsc"), ("phone-bridge", "ph"),
            ] {
                height += "      - {id: \(short)-\(i), type: \(t)}\n"
            }
        }
        return height
    }

    package func run() throws -> Result {
        let scenario = try ScenarioLoader.parse(scenarioYAML(), file: "bench.yaml")
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        guard let out = FileHandle(forWritingAtPath: sink) else { throw FileText.Failure.unwritable(path: sink) }
        defer { try? out.close() }
        let sinkBuffer = FrameBuffer(capacity: 1 << 20)
        let clock = ContinuousClock()
        let started = clock.now
        var run = ScenarioRun(scenario: scenario)
        var count = 0
        var bytes = 0
        while let (reading, _) = run.next() {
            for p in encoder.encode(reading) {
                let ts =
                    (scenario.startUnixMilliseconds + reading.intendedEmitTime) * 1000 + BTSnoopWriter.unixEpochOffset
                if let json = p.json {
                    sinkBuffer.append(Array(json.serialized().utf8))
                } else {
                    sinkBuffer.appendRecord(
                        value: p.bytes,
                        characteristic: p.characteristic ?? 0,
                        indicate: p.indicate,
                        timestamp: ts
                    )
                }
            }
            count += 1
            if sinkBuffer.count > 1 << 20 {
                bytes += sinkBuffer.count
                sinkBuffer.flush(to: out)
            }
        }
        bytes += sinkBuffer.count
        sinkBuffer.flush(to: out)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(
            patients: patients,
            hours: duration.seconds / 3600,
            readings: count,
            bytes: bytes,
            seconds: seconds,
            peakRSSMegabytes: ResourceUsage.peakResidentMegabytes()
        )
    }
}

/// A byte buffer that frames payloads as btsnoop records (24-byte header, H4 ACL, L2CAP CID 4, ATT
/// notification or indication header, value) without per-field array allocations.
final class FrameBuffer {
    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity + 4096
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    private func be32(_ v: UInt32) {
        storage[count] = UInt8(v >> 24)
        storage[count + 1] = UInt8((v >> 16) & 0xFF)
        storage[count + 2] = UInt8((v >> 8) & 0xFF)
        storage[count + 3] = UInt8(v & 0xFF)
        count += 4
    }

    func appendRecord(value: [UInt8], characteristic: UInt16, indicate: Bool, timestamp: Int64) {
        let length = UInt32(value.count + 12)
        be32(length)
        be32(length)
        be32(0)
        be32(0)
        let ts = UInt64(bitPattern: timestamp)
        be32(UInt32(ts >> 32))
        be32(UInt32(ts & 0xFFFF_FFFF))
        let l2 = value.count + 3
        let header: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (
                0x02, 0x40, 0x00, UInt8((l2 + 4) & 0xFF), UInt8((l2 + 4) >> 8), UInt8(l2 & 0xFF), UInt8(l2 >> 8), 0x04,
                0x00,
                indicate ? 0x1D : 0x1B, UInt8(characteristic & 0xFF), UInt8(characteristic >> 8)
            )
        withUnsafeBytes(of: header) { raw in
            (storage + count).update(from: raw.bindMemory(to: UInt8.self).baseAddress!, count: 12)
        }
        count += 12
        append(value)
    }

    func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        precondition(count + bytes.count <= capacity, "FrameBuffer overflow")
        bytes.withUnsafeBufferPointer { (storage + count).update(from: $0.baseAddress!, count: bytes.count) }
        count += bytes.count
    }

    func flush(to handle: FileHandle) {
        handle.write(Data(bytes: storage, count: count))
        count = 0
    }
}

/// Process resource usage.
package enum ResourceUsage {
    /// Peak resident set size of this process, MB (getrusage ru_maxrss, KiB on Linux).
    package static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
