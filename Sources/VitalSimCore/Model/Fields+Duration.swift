import Yams

extension Fields {
    /// A strictly positive duration such as `90s`, `10m`, `1h30m`.
    package func duration(_ key: String, allowZero: Bool = false) -> VirtualDuration? {
        guard let v = value(key) else { return nil }
        guard let scalar = v.scalar, let virtualDuration = VirtualDuration(parsing: scalar.string) else {
            reader.fail(v, path(key), "expected a duration such as 90s, 10m or 1h30m, got \(reader.kindName(v))")
            return nil
        }
        if virtualDuration.milliseconds > VirtualDuration.maximum.milliseconds {
            reader.fail(v, path(key), "'\(scalar.string)' is longer than the 3650d VitalSim supports")
            return nil
        }
        if virtualDuration.milliseconds < 0 || (virtualDuration.milliseconds == 0 && !allowZero) {
            reader.fail(
                v,
                path(key),
                "duration must be \(allowZero ? "zero or positive" : "positive"), got '\(scalar.string)'"
            )
            return nil
        }
        return virtualDuration
    }
}
