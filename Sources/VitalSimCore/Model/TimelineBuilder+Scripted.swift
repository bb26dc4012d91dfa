import Yams

extension TimelineBuilder {
    /// A `reading:` entry: a device, the values its type reads (all required ones, in range), and
    /// for a sequence `count` (2...10,000) and `every`, for a ramp `to` with the same fields.
    func scripted(_ node: Node, _ field: String) -> TimelineEntry? {
        let allowed = ["at", "device", "reading", "to", "count", "every"]
        guard let fields = reader.mapping(node, field, allowed: allowed, required: ["at", "device", "reading"]) else {
            return nil
        }
        let at = fields.duration("at", allowZero: true)?.milliseconds ?? 0
        checkStart(at, fields)
        let deviceID = fields.string("device") ?? ""
        guard let type = context.deviceType(deviceID) else {
            if fields.has("device") {
                let valid = context.deviceIDs.joined(separator: ", ")
                reader.fail(
                    fields.value("device"),
                    fields.path("device"),
                    "no device '\(deviceID)' in this scenario; valid: \(valid)"
                )
            }
            return nil
        }
        guard let spec = ScriptedReading.fields(of: type) else {
            reader.fail(
                fields.value("reading"),
                fields.path("reading"),
                "a \(type.rawValue)'s readings cannot be scripted"
            )
            return nil
        }
        guard let values = values(fields, "reading", spec, type) else { return nil }
        let to = fields.has("to") ? self.values(fields, "to", spec, type) : nil
        let count = Int(fields.integer("count", in: 1...10_000) ?? 1)
        let every = fields.duration("every")?.milliseconds ?? 60_000
        if fields.has("to"), count < 2 {
            reader.fail(fields.value("to"), fields.path("to"), "a ramp needs count of 2 or more readings")
        }
        if let to, Set(to.keys) != Set(values.keys) {
            reader.fail(
                fields.value("to"),
                fields.path("to"),
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
            line: fields.line
        )
        if script.end >= context.duration {
            reader.fail(
                fields.value("count") ?? fields.value("at"),
                fields.path("count"),
                "the last scripted reading falls at or after the end of the scenario"
            )
        }
        return .scripted(script)
    }

    /// The fields of `reading` or `to`: each known to the device type and in range, every required one given.
    private func values(
        _ fields: Fields,
        _ key: String,
        _ spec: ScriptedReading.Fields,
        _ type: DeviceType
    ) -> [String: Double]? {
        guard let node = fields.value(key) else { return nil }
        let ranges = spec.ranges.merging(spec.optional) { a, _ in a }
        let names = spec.required + spec.optional.keys.sorted()
        guard let group = reader.mapping(node, fields.path(key), allowed: names, required: spec.required) else {
            return nil
        }
        var out: [String: Double] = [:]
        for name in names {
            guard let range = ranges[name], let value = group.number(name, in: range, unit: "") else { continue }
            out[name] = value
        }
        if let systolic = out["systolic"], let diastolic = out["diastolic"], diastolic >= systolic {
            reader.fail(node, fields.path(key), "diastolic \(diastolic) must be below systolic \(systolic)")
        }
        return spec.required.allSatisfy({ out[$0] != nil }) ? out : nil
    }
}
