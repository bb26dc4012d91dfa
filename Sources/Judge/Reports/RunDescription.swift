import Crypto
import Foundation
import VitalSimCore

/// What a run tested, for every report (console, JSON, JUnit properties, HTML): the SUT and its
/// profile (path and sha256, so an auditor knows which profile judged it), where it was reached,
/// the VitalSim version, the suite, the seed, when the run started and how long it took, and the
/// gate's settings. Ordered pairs, shown in this order everywhere.
package struct RunDescription: Sendable, Equatable {
    package var fields: [Field]

    package struct Field: Sendable, Equatable {
        package var key: String
        package var value: String

        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    package init(fields: [Field]) { self.fields = fields }

    /// A run's description from what the command knows.
    /// - Parameters:
    ///   - sut: the SUT profile's name (`vitalsim` for the reference contract).
    ///   - profile: the profile's path, when one was given.
    ///   - target: the base URL, nil for the embedded reference SUT.
    ///   - seed: the `--seed` override, nil when each scenario keeps its own.
    ///   - started: the wall-clock start, Unix ms.
    ///   - gate: the gate's settings in words (`strict`, `waivers FILE`, `baseline FILE`), if any.
    package init(
        sut: String,
        profile: String?,
        target: String?,
        suite: String,
        seed: UInt64?,
        runID: String,
        started: Int64,
        duration: Double,
        gate: [String]
    ) {
        var fields = [Field("sut", sut)]
        if let profile {
            fields.append(Field("profile", profile))
            fields.append(Field("profile sha256", Self.sha256(ofFile: profile) ?? "unreadable"))
        }
        fields += [
            Field("base url", target ?? "embedded reference SUT (vitalsim serve, one per scenario)"),
            Field("vitalsim", VitalSimVersion.current), Field("suite", suite),
            Field("seed", seed.map(String.init) ?? "each scenario's own (its golden file records it)"),
            Field("run id", runID), Field("started", CivilTime(unixMilliseconds: started).iso8601(fractional: false)),
            Field("duration", String(format: "%.1f s", duration)),
        ]
        if !gate.isEmpty { fields.append(Field("gate", gate.joined(separator: ", "))) }
        self.fields = fields
    }

    /// The hex sha256 of a file's bytes; nil when it cannot be read.
    package static func sha256(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// `key: value` lines.
    package var lines: [String] { fields.map { "\($0.key): \($0.value)" } }
}
