import Judge
import VitalSimCore

/// One requirement of the catalogue (docs/requirements.md): a stable id that checks, waivers and
/// reports name, its level, what part of a backend it is about, where it comes from and what it asks.
package struct Requirement: Sendable, Equatable {
    /// Where an entry of the catalogue comes from.
    package enum Origin: String, Sendable, Equatable, CaseIterable {
        /// Written in `requirements.yaml`: a source document's requirement, or VitalSim's contract.
        case catalogue
        /// One per shipped alert rule (the reference SUT's rule file).
        case rule
        /// Two per reading kind: its valid readings accepted, its invalid ones refused.
        case kind
        /// One per GATT characteristic VitalSim encodes and decodes.
        case gatt
    }

    /// When a run can exercise a requirement at all: always, or only in a mode the run is given.
    package enum Applicability: String, Sendable, Equatable, CaseIterable {
        /// Any run.
        case always
        /// A run whose Bluetooth devices reach the SUT's gateway over a live BLE link (`--ble hci`).
        case bleLink = "ble-link"
        /// A run that observes the SUT's push channels (`--observe`, or the profile's `conformance.channels`).
        case pushChannels = "push-channels"

        /// How a reader is told what it takes, for coverage documents.
        package var phrase: String {
            switch self {
            case .always: "any run"
            case .bleLink: "runs over a BLE link (vitalsim run --ble hci; vitalsim coverage --ble)"
            case .pushChannels: "runs that observe push channels (vitalsim run --observe; vitalsim coverage --observe)"
            }
        }
    }

    /// The stable id (`alerts.raised`, `rule.hr.tachycardia`, `ingest.cgm.refuse`, `gatt.0x2A37`).
    package var id: String
    package var level: RequirementLevel
    /// `endpoints`, `payloads`, `cadence`, `errors`, `alerts`, `queries`, `latency`, `access`,
    /// `devices`, `gatt`, `harness`.
    package var area: String
    /// The seed file and section, clinical guideline, Bluetooth SIG specification or contract.
    package var source: String
    /// What it asks, in one line.
    package var text: String
    package var origin: Origin
    /// A rule's decision in words (signal, operator, threshold), persistence, re-arm, severity and
    /// profiles; empty for other requirements.
    package var rule: RuleDescription?
    /// The runs that can exercise it.
    package var applies: Applicability = .always

    /// Whether a suite's coverage counts it: not the harness's own (`vitalsim.*`, area `harness`),
    /// nor the ids a check names when the run could not tell a reading's kind (`ingest.any.*`).
    package var isCounted: Bool { area != "harness" && !id.hasPrefix("ingest.any.") }
}
