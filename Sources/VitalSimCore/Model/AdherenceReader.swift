import Yams

/// Reads a device's `adherence:` — `exact`, `usual`, or `{missed: 0.2, spread: 20m}` — for a
/// patient of `profile`; nil when the device has none (the scenario's `adherence:` decides).
struct AdherenceReader {
    let reader: YAMLReader

    func read(_ fields: Fields, device: DeviceSpec, profile: Profile) -> Adherence? {
        guard let node = fields.value("adherence") else { return nil }
        let path = fields.path("adherence")
        if !Adherence.applies(to: device) {
            reader.fail(
                node,
                path,
                "adherence applies to a device measured by hand at set times (bp-cuff, glucometer, weight-scale, "
                    + "thermometer or spot-check pulse-oximeter with a schedule; or any of them but the bp-cuff with a "
                    + "cadence of 1h or more)"
            )
            return nil
        }
        if let word = node.scalar?.string {
            guard let mode = AdherenceMode(rawValue: word) else {
                reader.fail(
                    node,
                    path,
                    "unknown adherence '\(word)'; valid: usual, exact, or {missed: 0.1, spread: 15m}"
                )
                return nil
            }
            return mode == .exact ? .exact : .usual(for: profile)
        }
        guard let own = reader.mapping(node, path, allowed: ["missed", "spread"]) else { return nil }
        let usual = Adherence.usual(for: profile)
        let missed = own.number("missed", in: 0...1, unit: "(share of measurements)") ?? usual.missed
        let spread = own.duration("spread", allowZero: true)?.milliseconds ?? usual.spread
        if spread > 3 * 3_600_000 {
            reader.fail(own.value("spread"), own.path("spread"), "a spread above 3h moves a measurement by up to 18h")
            return nil
        }
        return Adherence(missed: missed, spread: spread)
    }
}
