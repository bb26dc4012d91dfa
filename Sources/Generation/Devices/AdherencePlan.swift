import VitalSimCore

/// When one device's scheduled measurements are taken (``Adherence``): each scheduled time is kept
/// or missed, and moved, by a hash of the device's seed and the time, so that the device and the
/// patient's physiology (sitting still for a cuff) agree on it without sharing state.
struct AdherencePlan {
    let adherence: Adherence
    let seed: UInt64
    let startUnixMilliseconds: Int64

    /// Whether the device is kept to a cadence by hand (``Adherence/keepsCadenceByHand(_:)``): not
    /// read while its user sleeps.
    let byHandOnCadence: Bool

    /// The plan of `device`, a device of the patient whose stream is `patient`. A device kept to a
    /// cadence is taken at most an eighth of its interval early (three quarters late), so that its
    /// measurements keep their order.
    init(_ device: DeviceSpec, patient: SeededRandom, clock: DayClock) {
        var adherence = device.adherence
        byHandOnCadence = adherence != .exact && Adherence.keepsCadenceByHand(device)
        if byHandOnCadence { adherence.spread = min(adherence.spread, device.cadence.milliseconds / 8) }
        self.adherence = adherence
        seed = patient.split("device:" + device.id).split("adherence").seed
        startUnixMilliseconds = clock.startUnixMilliseconds
    }

    /// When the measurement scheduled at `nominal` (ms since the start) is taken, to the second;
    /// nil when it is not taken.
    func actual(_ nominal: Int64) -> Int64? {
        if adherence == .exact { return nominal }
        let key = self.key(nominal)
        if SeededRandom.unit(seed, key) < adherence.missed { return nil }
        let spread = Double(adherence.spread)
        // At most one spread early and two late: a draw beyond either edge is folded back inside
        // it (uniformly) rather than clamped, which put one reading in six on exactly −spread.
        var offset = spread * SeededRandom.normal(seed, key &+ 1)
        if offset < -spread || offset > 2 * spread {
            offset = (offset < 0 ? -spread : 2 * spread) * SeededRandom.unit(seed, key &+ 6)
        }
        if SeededRandom.unit(seed, key &+ 3) < 1.0 / 7 {
            offset += spread * (1 + 3 * SeededRandom.unit(seed, key &+ 4))
        }
        return max(0, (nominal + Int64(offset)) / 1000 * 1000)
    }

    /// How long after waking its user takes the measurement scheduled at `nominal` that fell due in
    /// their sleep: up to one spread, to the second.
    func delayAfterWaking(_ nominal: Int64) -> Int64 {
        Int64(SeededRandom.unit(seed, key(nominal) &+ 5) * Double(adherence.spread)) / 1000 * 1000
    }

    /// The hash key of the measurement scheduled at `nominal`: its absolute time, so that a
    /// measurement's draws do not depend on where the scenario starts.
    private func key(_ nominal: Int64) -> UInt64 { UInt64(bitPattern: startUnixMilliseconds + nominal) }
}
