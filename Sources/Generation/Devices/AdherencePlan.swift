import VitalSimCore

/// When one device's scheduled measurements are taken (``Adherence``): each scheduled time is kept
/// or missed, and moved, by a hash of the device's seed and the time, so that the device and the
/// patient's physiology (sitting still for a cuff) agree on it without sharing state.
struct AdherencePlan {
    let adherence: Adherence
    let seed: UInt64
    let startUnixMilliseconds: Int64

    /// The plan of `device`, a device of the patient whose stream is `patient`.
    init(_ device: DeviceSpec, patient: SeededRandom, clock: DayClock) {
        adherence = device.adherence
        seed = patient.split("device:" + device.id).split("adherence").seed
        startUnixMilliseconds = clock.startUnixMilliseconds
    }

    /// When the measurement scheduled at `nominal` (ms since the start) is taken, to the second;
    /// nil when it is not taken.
    func actual(_ nominal: Int64) -> Int64? {
        if adherence == .exact { return nominal }
        let key = UInt64(bitPattern: startUnixMilliseconds + nominal)
        if SeededRandom.unit(seed, key) < adherence.missed { return nil }
        let spread = Double(adherence.spread)
        var offset = Math.clamp(spread * SeededRandom.normal(seed, key &+ 1), -spread, 2 * spread)
        if SeededRandom.unit(seed, key &+ 3) < 1.0 / 7 {
            offset += spread * (1 + 3 * SeededRandom.unit(seed, key &+ 4))
        }
        return max(0, (nominal + Int64(offset)) / 1000 * 1000)
    }
}
