import Yams

extension TimelineBuilder {
    /// A `reading:` entry: a device, the values its type reads (all required ones, in range), and
    /// for a sequence `count` (2...10,000) and `every`, for a ramp `to` with the same fields.
    func scripted(_ node: Node, _ field: String) -> TimelineEntry? {
        let allowed = ["at", "device", "reading", "to", "count", "every"]
        guard let f = reader.mapping(node, field, allowed: allowed, required: ["at", "device", "reading"]) else {
            return nil
        }
        let at = f.duration("at", allowZero: true)?.milliseconds ?? 0
        checkStart(at, f)
        let deviceID = f.string("device") ?? ""
        guard let type = context.deviceTypes[deviceID] else {
            if f.has("device") {
                let valid = context.deviceTypes.keys.sorted().joined(separator: ", ")
                reader.fail(
                    f.value("device"),
                    f.path("device"),
                    "no device '\(deviceID)' in this scenario; valid: \(valid)"
                )
            }
            return nil
        }
        guard let spec = ScriptedReading.fields(of: type) else {
            reader.fail(f.value("reading"), f.path("reading"), "a \(type.rawValue)'s readings cannot be scripted")
            return nil
        }
        guard let values = values(f, "reading", spec, type) else { return nil }
        let to = f.has("to") ? self.values(f, "to", spec, type) : nil
        let count = Int(f.integer("count", in: 1...10_000) ?? 1)
        let every = f.duration("every")?.milliseconds ?? 60_000
        if f.has("to"), count < 2 {
            reader.fail(f.value("to"), f.path("to"), "a ramp needs count of 2 or more readings")
        }
        if let to, Set(to.keys) != Set(values.keys) {
            reader.fail(
                f.value("to"),
                f.path("to"),
                "a ramp's 'to' sets the same fields as its 'reading': \(values.keys.sorted().joined(separator: ", "))"
            )
        }
        let script = ScriptedReading(
            deviceID: deviceID,
            start: at,
            values: values,
            to: to,
            count: count,
            every: every,
            line: f.line
        )
        if script.end >= context.duration {
            reader.fail(
                f.value("count") ?? f.value("at"),
                f.path("count"),
                "the last scripted reading falls at or after the end of the scenario"
            )
        }
        return .scripted(script)
    }

    /// The fields of `reading` or `to`: each known to the device type and in range, every required one given.
    private func values(
        _ f: Fields,
        _ key: String,
        _ spec: ScriptedReading.Fields,
        _ type: DeviceType
    ) -> [String: Double]? {
        guard let node = f.value(key) else { return nil }
        let ranges = spec.ranges.merging(spec.optional) { a, _ in a }
        let names = spec.required + spec.optional.keys.sorted()
        guard let g = reader.mapping(node, f.path(key), allowed: names, required: spec.required) else { return nil }
        var out: [String: Double] = [:]
        for name in names {
            guard let range = ranges[name], let v = g.number(name, in: range, unit: "") else { continue }
            out[name] = v
        }
        if let s = out["systolic"], let d = out["diastolic"], d >= s {
            reader.fail(node, f.path(key), "diastolic \(d) must be below systolic \(s)")
        }
        return spec.required.allSatisfy({ out[$0] != nil }) ? out : nil
    }
}
