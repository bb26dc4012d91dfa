/// How a person keeps a home device's schedule (`adherence:`, docs/scenarios.md): some scheduled
/// measurements are not taken, and the rest are taken around their time rather than on it.
public struct Adherence: Sendable, Equatable {
    /// The share of scheduled measurements not taken (0–1).
    public var missed: Double
    /// The SD of when a measurement is taken around its scheduled time (ms): at most this much
    /// early and twice as late, and one in seven later still, by one to four times this.
    public var spread: Int64

    /// A value with every field given.
    public init(missed: Double, spread: Int64) {
        self.missed = missed
        self.spread = spread
    }

    /// Every measurement taken at its scheduled time.
    public static let exact = Adherence(missed: 0, spread: 0)

    /// The largest delay a measurement can have (ms): twice the spread, plus four times it.
    public var latest: Int64 { 6 * spread }

    /// How a patient of `profile` usually keeps a home schedule: about one measurement in ten
    /// missed, taken within a quarter of an hour or so of its time (home telemonitoring programmes
    /// report 75–90 % of scheduled readings taken); an interstage infant's carers miss one in twenty.
    public static func usual(for profile: Profile) -> Adherence {
        profile == .chdInfant
            ? Adherence(missed: 0.05, spread: 20 * 60_000) : Adherence(missed: 0.1, spread: 15 * 60_000)
    }

    /// Whether `device` is one a person uses by hand at set times, so that adherence applies to it:
    /// a cuff, meter, scale, thermometer or spot-check oximeter with a `schedule`, or one of them
    /// but the cuff with a `cadence` of an hour or more (a cuff on a cadence is an ambulatory
    /// monitor, which measures by itself; a shorter cadence is a bench's, not a person's routine).
    public static func applies(to device: DeviceSpec) -> Bool {
        let manual: Set<DeviceType> = [.bpCuff, .glucometer, .weightScale, .thermometer, .pulseOximeter]
        guard manual.contains(device.type), !device.continuous, device.trace == nil else { return false }
        return !device.schedule.isEmpty || keepsCadenceByHand(device)
    }

    /// Whether `device` is used by hand on a `cadence` (every few hours, not at times of day): its
    /// user does not wake to take it, and takes one on waking instead (``Adherence/applies(to:)``).
    public static func keepsCadenceByHand(_ device: DeviceSpec) -> Bool {
        device.schedule.isEmpty && device.type != .bpCuff && device.cadence.milliseconds >= 3_600_000
    }
}

/// How a scenario's people keep their devices' schedules (`adherence:`): `usual` (the default)
/// as people do, per profile (``Adherence/usual(for:)``); `exact` every measurement on time, for
/// stories whose times matter.
public enum AdherenceMode: String, Sendable, CaseIterable {
    case usual, exact
}
