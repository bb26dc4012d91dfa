import Foundation
import Yams

/// A device whose readings come from a recording (`trace:` on a device) rather than from the
/// patient's physiology: VitalSim's own `readings.jsonl`, a CSV, a Dexcom Clarity export, an Apple
/// Health `export.xml` or a btsnoop capture. The device sends the recording's readings, shifted so
/// that the first lands at ``at``, through its transport like generated ones (battery, faults and
/// encoding as usual); it measures nothing itself. The loader reads the key; the `Traces` module
/// reads the file (``readings``).
public struct DeviceTrace: Sendable, Equatable {
    /// The file formats a trace can be read from.
    public enum Format: String, Sendable, CaseIterable {
        /// `readings.jsonl` as `vitalsim generate` writes it.
        case readingsJSONL = "vitalsim-jsonl"
        /// A CSV with a `time` column and one column per scripted-reading field (docs/scenarios.md).
        case csv
        /// A Dexcom Clarity CSV export (EGV rows for a CGM, Calibration rows for a glucometer).
        case dexcomClarity = "dexcom-clarity"
        /// An Apple Health `export.xml`.
        case appleHealth = "apple-health"
        /// A btsnoop capture: the device's measurement notifications and indications.
        case btsnoop
        /// Apple Health's ECG recordings (`electrocardiograms/ecg_*.csv`): a file or a folder of them.
        case appleECG = "apple-ecg"
    }

    /// A recording an ECG watch replays: when it began (virtual ms) and what it holds.
    public struct Electrocardiogram: Sendable, Equatable {
        /// The recording's start in scenario time.
        public var start: Int64
        /// The waveform, classification and the average heart rate found in it.
        public var recording: ECGRecording
        /// The file it came from, for messages.
        public var file: String

        /// A value with every field given.
        public init(start: Int64, recording: ECGRecording, file: String) {
            self.start = start
            self.recording = recording
            self.file = file
        }
    }

    /// The file as written in the scenario.
    public var file: String
    /// The file's path (relative paths resolved against the scenario's folder).
    public var path: String
    /// The file's format.
    public var format: Format
    /// Where the trace's first reading lands (virtual ms from the scenario's start).
    public var at: Int64
    /// `vitalsim-jsonl`: the device id in the file (default the traced device's own).
    public var fromDevice: String?
    /// `apple-health`: only records whose `sourceName` is this (default every source).
    public var source: String?
    /// `dexcom-clarity`: the UTC offset of its local time stamps, in minutes (default 0).
    public var utcOffsetMinutes: Int
    /// `btsnoop`: the attribute handle of the measurement characteristic's value, when the capture
    /// holds no characteristic discovery to find it from.
    public var handle: Int?
    /// 1-based line of `trace:` in the scenario file, for messages.
    public var line: Int
    /// The field path of `trace:` (`patients[0].devices[1].trace`), for messages.
    public var field: String
    /// The recording's readings in scenario time, filled by the `Traces` module; nil until then.
    public var readings: [ScriptedReading]?
    /// An ECG watch's recordings in scenario time (`apple-ecg`), filled by the `Traces` module.
    public var electrocardiograms: [Electrocardiogram]?

    static let keys = ["file", "format", "at", "from-device", "source", "utc-offset", "handle"]

    /// Reads `trace:` of a device mapping; nil (with issues reported) when it is wrong.
    static func read(_ fields: Fields, type: DeviceType, reader: YAMLReader) -> DeviceTrace? {
        guard let node = fields.value("trace"),
            let group = reader.mapping(node, fields.path("trace"), allowed: keys, required: ["file"])
        else {
            return nil
        }
        guard ScriptedReading.fields(of: type) != nil || type == .ecgWatch else {
            reader.fail(node, fields.path("trace"), "a \(type.rawValue)'s readings cannot come from a trace")
            return nil
        }
        let file = group.string("file") ?? ""
        let folder = (reader.file as NSString).deletingLastPathComponent
        let path = file.hasPrefix("/") || folder.isEmpty ? file : folder + "/" + file
        var format = group.choice("format", Format.self, what: "trace format")
        if format == nil, !group.has("format") {
            switch (file as NSString).pathExtension.lowercased() {
            case "jsonl": format = .readingsJSONL
            case "xml": format = .appleHealth
            case "btsnoop", "cfa": format = .btsnoop
            default:
                let valid = Format.allCases.map(\.rawValue).joined(separator: ", ")
                reader.fail(node, group.path("format"), "say which format '\(file)' is: \(valid)")
            }
        }
        var offset = 0
        if let text = group.string("utc-offset") {
            guard let minutes = utcOffset(text) else {
                reader.fail(
                    group.value("utc-offset"),
                    group.path("utc-offset"),
                    "a UTC offset is ±hh:mm, e.g. +01:00 or -05:00, got '\(text)'"
                )
                return nil
            }
            offset = minutes
        }
        guard let format else { return nil }
        if (format == .appleECG) != (type == .ecgWatch) {
            reader.fail(
                node,
                group.path("format"),
                "an ecg-watch replays apple-ecg recordings, and only an ecg-watch does"
            )
            return nil
        }
        return DeviceTrace(
            file: file,
            path: path,
            format: format,
            at: group.duration("at", allowZero: true)?.milliseconds ?? 0,
            fromDevice: group.string("from-device"),
            source: group.string("source"),
            utcOffsetMinutes: offset,
            handle: group.integer("handle", in: 1...0xFFFF).map { Int($0) },
            line: group.line,
            field: fields.path("trace"),
            readings: nil
        )
    }

    /// Minutes of `±hh:mm`.
    static func utcOffset(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, bytes[0] == 43 || bytes[0] == 45, bytes[3] == 58,
            let hours = Int(String(decoding: bytes[1..<3], as: UTF8.self)),
            let minutes = Int(String(decoding: bytes[4..<6], as: UTF8.self)), hours <= 14, minutes <= 59
        else { return nil }
        return (bytes[0] == 43 ? 1 : -1) * (hours * 60 + minutes)
    }
}

extension DeviceTrace {
    /// A trace of `path` in `format`, placed at `at`, with the defaults of every other key (what
    /// tests and the fuzzer read recordings with).
    public init(path: String, format: Format, at: Int64 = 0) {
        self.init(
            file: path,
            path: path,
            format: format,
            at: at,
            fromDevice: nil,
            source: nil,
            utcOffsetMinutes: 0,
            handle: nil,
            line: 0,
            field: "trace",
            readings: nil
        )
    }
}
