import ArgumentParser
import Judge
import LiveHarness
import Logging
import RunRecord
import VitalSimCore

/// `--speed`: virtual seconds per wall second, or `max` (as fast as the SUT answers).
struct Speed: ExpressibleByArgument, Equatable {
    /// The factor; nil for `max`.
    let factor: Double?

    /// `max`.
    static let max = Speed(factor: nil)

    init(factor: Double?) { self.factor = factor }

    init?(argument: String) {
        if argument == "max" {
            factor = nil
        } else if let f = Double(argument), f > 0, f.isFinite {
            factor = f
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { factor.map { String($0) } ?? "max" }
}

/// `--shard I/N`: the I-th of N shards (1-based) of the suite's patients.
struct Shard: ExpressibleByArgument {
    let index: Int
    let count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (1...n).contains(i) else { return nil }
        index = i
        count = n
    }
}

/// `--mqtt-session`: the publisher's MQTT session.
enum MQTTSession: String, CaseIterable, ExpressibleByArgument {
    /// A clean start on every connection.
    case clean
    /// A session that keeps queued QoS 1/2 messages across reconnections.
    case persistent
}

extension PushChannel: ExpressibleByArgument {}
extension LiveOptions.BLE.Mode: ExpressibleByArgument {}

/// `--log-level` of `vitalsim serve`.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    /// The swift-log level.
    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .warning }
}

/// `--patient PATIENT=PROFILE` of `vitalsim serve`.
struct PatientProfile: ExpressibleByArgument {
    let patientID: String
    let profile: Profile

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let profile = Profile(rawValue: parts[1]) else { return nil }
        patientID = parts[0]
        self.profile = profile
    }
}

/// `--ble-device ADDRESS=PATIENT/DEVICE` of `vitalsim serve`.
struct BLEDeviceBinding: ExpressibleByArgument {
    /// The device's address, least significant byte first (HCI order).
    let address: [UInt8]
    let patientID: String
    let deviceID: String

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let bytes =
            parts.first?.split(separator: ":", omittingEmptySubsequences: false).map { UInt8($0, radix: 16) } ?? []
        let owner = parts.count == 2 ? parts[1].split(separator: "/", maxSplits: 1).map(String.init) : []
        guard bytes.count == 6, bytes.allSatisfy({ $0 != nil }), owner.count == 2, !owner[0].isEmpty, !owner[1].isEmpty
        else { return nil }
        address = bytes.compactMap { $0 }.reversed()
        patientID = owner[0]
        deviceID = owner[1]
    }
}
