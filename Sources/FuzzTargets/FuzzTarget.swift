import Bluetooth
import Judge
import ReferenceEngine
import Traffic
import VitalSimCore

/// What `vitalsim-fuzz` feeds hostile bytes to (`ci/fuzz.sh`, `docs/reliability.md`): every GATT
/// decoder, the scenario and golden loaders, the trace readers, and the reference SUT's JSON, FHIR
/// and raw GATT input.
///
/// Each target must never crash on any input; where an input is accepted it also checks an
/// invariant and stops the process (``FuzzFinding``) when it breaks: a GATT value re-encodes to
/// its own bytes, parsed JSON is within the depth limit.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// First byte: index into `CharacteristicRegistry.all`; the rest: the value.
    case gatt
    /// The bytes as a scenario file.
    case scenario
    /// The bytes as a golden file.
    case golden
    /// The bytes as a request body of every JSON route of the reference SUT.
    case sutJSON = "sut-json"
    /// First byte: characteristic (as ``gatt``); the rest: a raw GATT value sent over MQTT.
    case sutGATT = "sut-gatt"
    /// First byte: a trace format and device type; the rest: the recording (`trace:` files).
    case trace

    /// Runs one input; returns whether the input was accepted (for corpus statistics).
    @discardableResult
    package func run(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .gatt: Self.gatt(bytes)
        case .scenario: Self.text(bytes).map { (try? ScenarioLoader.parse($0, file: "fuzz.yaml")) != nil } ?? false
        case .golden: Self.text(bytes).map { (try? GoldenFile.parse($0, file: "fuzz.golden.yaml")) != nil } ?? false
        case .sutJSON: Self.sutJSON(bytes)
        case .sutGATT: Self.sutGATT(bytes)
        case .trace: Self.trace(bytes)
        }
    }

    /// The loaders read UTF-8 files; other bytes stop at `FileText.read`.
    static func text(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }

    static func characteristic(_ bytes: [UInt8]) -> (any GATTCharacteristic.Type, [UInt8])? {
        guard let first = bytes.first else { return nil }
        let all = CharacteristicRegistry.all
        return (all[Int(first) % all.count], Array(bytes.dropFirst()))
    }

    static func gatt(_ bytes: [UInt8]) -> Bool {
        guard let (type, value) = characteristic(bytes), let decoded = try? type.decode(value) else { return false }
        guard let again = try? decoded.encode(), again == value else {
            FuzzFinding.stop("\(type.name): \(Hex.encode(value)) decodes but does not re-encode to itself")
        }
        _ = try? CharacteristicRegistry.decodeToJSON(type, value)
        return true
    }

    /// A fixed server clock (2024-11-08T00:00:00Z), so that the same input is judged the same way.
    static let now: Int64 = 1_731_024_000_000

    static func sutJSON(_ bytes: [UInt8]) -> Bool {
        guard let body = try? JSONInput.parse(bytes, maxDepth: 11) else { return false }
        if body.depth > 11 { FuzzFinding.stop("parsed JSON nested \(body.depth) levels, over the limit of 11") }
        var accepted = false
        let items: [JSONInput] = if case let .array(a) = body { a } else { [body] }
        for item in items { accepted = (try? PayloadValidation.observation(item, now: now)) != nil || accepted }
        accepted = (try? PayloadValidation.iotHeartRate(body, now: now)) != nil || accepted
        accepted = (try? PayloadValidation.healthKitSummary(body, now: now)) != nil || accepted
        accepted = (try? FHIRObservation.parse(body, now: now)) != nil || accepted
        accepted = (try? FHIRBundle.parse(body, now: now)) != nil || accepted
        return accepted
    }

    /// The pairs of a trace format and a device type it can be read for, picked by the first byte.
    static let traceKinds: [(DeviceTrace.Format, DeviceType)] = [
        (.csv, .bpCuff), (.csv, .pulseOximeter), (.readingsJSONL, .bpCuff), (.readingsJSONL, .cgm),
        (.dexcomClarity, .cgm),
        (.dexcomClarity, .glucometer), (.appleHealth, .phoneBridge), (.appleHealth, .bpCuff),
        (.appleHealth, .weightScale),
        (.btsnoop, .heartRateStrap), (.btsnoop, .cgm), (.btsnoop, .bpCuff), (.btsnoop, .thermometer),
        (.appleECG, .ecgWatch),
    ]

    static func trace(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first else { return false }
        let (format, type) = traceKinds[Int(first) % traceKinds.count]
        let trace = DeviceTrace(path: "fuzz-trace", format: format)
        return ((try? TracedScenarioLoader.samples(of: Array(bytes.dropFirst()), trace: trace, type: type)) ?? 0) > 0
    }

    static func sutGATT(_ bytes: [UInt8]) -> Bool {
        guard let (type, value) = characteristic(bytes) else { return false }
        let observation = try? GATTObservations.observation(
            uuid: type.uuid,
            bytes: value,
            patientID: "p",
            deviceID: "d",
            readingID: "r",
            receivedAt: now
        )
        return observation != nil
    }
}

/// Stops the process on a broken invariant, the way libFuzzer expects a finding to be reported.
package enum FuzzFinding {
    package static func stop(_ message: String) -> Never { fatalError("fuzz finding: \(message)") }
}
