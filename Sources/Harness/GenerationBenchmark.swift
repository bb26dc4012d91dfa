import BLE
import Foundation
import VitalSimCore

/// `vitalsim bench generate`: readings per second for generation + GATT encoding of a synthetic
/// population at default cadences, with the output framed as btsnoop records and written to a sink.
public struct GenerationBenchmark {
    public struct Result: Sendable {
        public var patients: Int
        public var hours: Double
        public var readings: Int
        public var bytes: Int
        public var seconds: Double
        public var peakRSSMegabytes: Double
        public var readingsPerSecond: Double { Double(readings) / seconds }
    }

    public let patients: Int
    public let duration: VirtualDuration
    public let sink: String

    public init(patients: Int, duration: VirtualDuration, sink: String = "/dev/null") {
        self.patients = patients; self.duration = duration; self.sink = sink
    }

    /// The benchmark population: every patient wears a heart-rate strap (1 s) and a CGM (5 min), and
    /// has a BP cuff, a glucometer, a spot-check oximeter, a thermometer (4 h), a scale and the
    /// VitalEdge phone bridge (5 min), all at their default cadences.
    public func scenarioYAML() -> String {
        var y = "name: bench\nseed: 42\nduration: \(duration)\npatients:\n"
        for i in 0..<patients {
            y += "  - id: \"b\(i)\"\n    profile: \(i % 2 == 0 ? "adult" : "diabetic-cgm")\n    devices:\n"
            for (t, short) in [("heart-rate-strap", "hrm"), ("cgm", "cgm"), ("bp-cuff", "bp"), ("glucometer", "bgm"), ("pulse-oximeter", "oxi"),
                               ("thermometer", "tmp"), ("weight-scale", "wsc"), ("phone-bridge", "ph")] {
                y += "      - {id: \(short)-\(i), type: \(t)}\n"
            }
        }
        return y
    }

    public func run() throws -> Result {
        let scenario = try ScenarioLoader.parse(scenarioYAML(), file: "bench.yaml")
        let encoder = ReadingEncoder(startUnixMilliseconds: scenario.startUnixMilliseconds)
        guard let out = FileHandle(forWritingAtPath: sink) else { throw FileText.Failure.unwritable(path: sink) }
        defer { try? out.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        let clock = ContinuousClock()
        let started = clock.now
        var run = ScenarioRun(scenario: scenario)
        var count = 0, bytes = 0
        while let (reading, _) = run.next() {
            for p in encoder.encode(reading) {
                // btsnoop-style record: 24-byte header, H4/ACL/L2CAP/ATT headers, value.
                let ts = UInt64(bitPattern: (scenario.startUnixMilliseconds + reading.intendedEmitTime) * 1000 + BTSnoopWriter.unixEpochOffset)
                let len = UInt32(p.bytes.count + 12)
                for s in [24, 16, 8, 0] { buffer.append(UInt8((len >> UInt32(s)) & 0xFF)) }
                for s in [24, 16, 8, 0] { buffer.append(UInt8((len >> UInt32(s)) & 0xFF)) }
                buffer += [0, 0, 0, 0, 0, 0, 0, 0]
                for s in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8((ts >> UInt64(s)) & 0xFF)) }
                let l2 = UInt16(p.bytes.count + 3)
                buffer += [0x02, 0x40, 0x00, UInt8((l2 + 4) & 0xFF), UInt8((l2 + 4) >> 8), UInt8(l2 & 0xFF), UInt8(l2 >> 8), 0x04, 0x00,
                           p.indicate ? 0x1D : 0x1B, UInt8((p.characteristic ?? 0) & 0xFF), UInt8((p.characteristic ?? 0) >> 8)]
                buffer += p.bytes
                if let j = p.json { buffer += Array(j.serialized().utf8) }
            }
            count += 1
            if buffer.count > 1 << 20 { bytes += buffer.count; out.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
        }
        bytes += buffer.count
        out.write(Data(buffer))
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(patients: patients, hours: duration.seconds / 3600, readings: count, bytes: bytes, seconds: seconds,
                      peakRSSMegabytes: ResourceUsage.peakResidentMegabytes())
    }
}

/// Process resource usage.
public enum ResourceUsage {
    /// Peak resident set size of this process, MB (getrusage ru_maxrss, KiB on Linux).
    public static func peakResidentMegabytes() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_maxrss) / 1024
    }
}
