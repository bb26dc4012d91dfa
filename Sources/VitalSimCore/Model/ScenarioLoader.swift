import Yams

/// Loads scenario YAML files strictly: every problem is reported with `file:line:column`, the
/// field and what would be valid.
public enum ScenarioLoader {
    /// Default wall-clock start of virtual time zero: 2024-11-07T00:00:00Z (the seeds' date).
    public static let defaultStart = CivilTime(year: 2024, month: 11, day: 7).unixMilliseconds

    /// Loads and validates the file at `path`.
    public static func load(path: String) throws(ScenarioLoadError) -> Scenario {
        let text: String
        do { text = try FileText.read(path) } catch {
            if case let .notUTF8(_, line, column, _) = error {
                throw ScenarioLoadError(issues: [
                    ScenarioIssue(file: path, line: line, column: column, field: "", message: "\(error)")
                ])
            }
            throw ScenarioLoadError(issues: [
                ScenarioIssue(file: path, line: 0, column: 0, field: "", message: "\(error)")
            ])
        }
        return try parse(text, file: path)
    }

    /// Text at least this long (4 MiB, a ward of about 12,000 patients) is composed one patient at
    /// a time (``PatientListChunks``); shorter text, and text not of that plain form, whole.
    static let composedByPatientFrom = 4 << 20

    /// Parses and validates scenario text; `file` is used in messages.
    public static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> Scenario {
        try parse(text, file: file, byPatient: text.utf8.count >= composedByPatientFrom)
    }

    /// Parses and validates scenario text, composing its patients one at a time when `byPatient`
    /// and the text allows it (the same scenario and the same issues either way).
    package static func parse(_ text: String, file: String, byPatient: Bool) throws(ScenarioLoadError) -> Scenario {
        if byPatient, let chunks = PatientListChunks(text), let rest = try? Yams.compose(yaml: chunks.rest) {
            let reader = YAMLReader(file: file)
            let patients = PatientNodes(chunks)
            let scenario = ScenarioBuilder(reader: reader, patientNodes: patients).build(rest)
            // A chunk that did not compose: the whole document's composition says why (or reads it).
            if !patients.failed {
                guard reader.issues.isEmpty, let scenario else {
                    throw ScenarioLoadError(issues: reader.reportedIssues)
                }
                return scenario
            }
        }
        let root = try compose(text, file: file)
        let reader = YAMLReader(file: file)
        let scenario = ScenarioBuilder(reader: reader).build(root)
        guard reader.issues.isEmpty, let scenario else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return scenario
    }

    /// The YAML node tree of `text` (scenarios, rules, credentials and golden files all start here);
    /// an empty file or a YAML syntax error is an issue positioned in `file`.
    public static func compose(_ text: String, file: String) throws(ScenarioLoadError) -> Node {
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw ScenarioLoadError(issues: [
                    ScenarioIssue(file: file, line: 1, column: 1, field: "", message: "the file is empty")
                ])
            }
            return node
        } catch let loadError as ScenarioLoadError {
            throw loadError
        } catch let yamlError as YamlError {
            throw ScenarioLoadError(issues: [yamlIssue(yamlError, file: file, text: text)])
        } catch {
            throw ScenarioLoadError(issues: [
                ScenarioIssue(file: file, line: 1, column: 1, field: "", message: "\(error)")
            ])
        }
    }

    /// The position and problem of a Yams parse error (a duplicate key at its second occurrence in `text`).
    public static func yamlIssue(_ yamlError: YamlError, file: String, text: String = "") -> ScenarioIssue {
        switch yamlError {
        case let .duplicatedKeysInMapping(duplicates, context):
            let key = duplicates.sorted().first ?? ""
            let at = DuplicateKeyFinder.secondOccurrence(of: key, in: text)
            return ScenarioIssue(
                file: file,
                line: at?.line ?? context.mark.line,
                column: at?.column ?? context.mark.column,
                field: key,
                message: "duplicate key '\(key)'; each key may appear once in a mapping"
            )
        case let .scanner(_, problem, mark, _), let .parser(_, problem, mark, _), let .composer(_, problem, mark, _):
            return ScenarioIssue(
                file: file,
                line: mark.line,
                column: mark.column,
                field: "",
                message: "invalid YAML: \(problem)"
            )
        default:
            return ScenarioIssue(file: file, line: 1, column: 1, field: "", message: "invalid YAML: \(yamlError)")
        }
    }
}

/// Builds a ``Scenario`` from a node tree, recording issues in the reader.
struct ScenarioBuilder {
    let reader: YAMLReader
    /// The patients' nodes, composed one at a time, when the root's `patients:` was left out of it.
    var patientNodes: PatientNodes? = nil

    func build(_ root: Node) -> Scenario? {
        guard
            let top = reader.mapping(
                root,
                "",
                allowed: [
                    "name", "description", "seed", "duration", "start", "golden", "network", "population", "adherence",
                    "patients", "timeline",
                ],
                required: ["name", "duration", "patients"]
            )
        else { return nil }
        let name = top.string("name") ?? "unnamed"
        if top.has("name"), !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            reader.fail(
                top.value("name"),
                "name",
                "use letters, digits, '-' and '_' only (it names output files), got '\(name)'"
            )
        }
        let seed = top.integer("seed", in: 0...Int64.max) ?? 1
        let duration = top.duration("duration") ?? .hours(1)
        let start = startTime(top)
        let population = top.choice("population", PopulationMode.self, what: "population") ?? .varied
        let adherence = top.choice("adherence", AdherenceMode.self, what: "adherence") ?? .usual
        let (patients, deviceIDs) = patients(top, population: population, adherence: adherence)
        checkCareRoles(patients)
        var timeline: [TimelineEntry] = []
        var actions: [CareTeamAction] = []
        if let list = top.list("timeline") {
            let ctx = TimelineContext(patients: patients, devices: deviceIDs, duration: duration.milliseconds)
            let builder = TimelineBuilder(reader: reader, context: ctx)
            for (i, node) in list.enumerated() {
                if node.mapping?["action"] != nil {
                    if let action = builder.careAction(node, "timeline[\(i)]") { actions.append(action) }
                } else if let entry = builder.entry(node, "timeline[\(i)]") {
                    timeline.append(entry)
                }
            }
            checkOverlaps(timeline, list)
        }
        timeline.sort { $0.start < $1.start }
        var scenario = Scenario(
            name: name,
            description: top.string("description") ?? "",
            seed: UInt64(seed),
            duration: duration,
            startUnixMilliseconds: start,
            golden: top.string("golden") ?? "golden/\(name).golden.yaml",
            patients: patients,
            timeline: timeline,
            sourcePath: reader.file
        )
        scenario.network = network(top)
        scenario.careActions = actions.sorted { $0.at < $1.at }
        return scenario
    }

    /// The network the scenario's devices send through (`network:`, as `vitalsim run --network`).
    private func network(_ top: Fields) -> NetworkWeather? {
        guard let text = top.string("network") else { return nil }
        do throws(NetworkWeatherError) {
            return try NetworkWeather.parse(text)
        } catch {
            reader.fail(top.value("network"), "network", error.description)
            return nil
        }
    }

    /// The scenario's start (Unix ms): `start:` or the default.
    private func startTime(_ top: Fields) -> Int64 {
        guard let text = top.string("start") else { return ScenarioLoader.defaultStart }
        if let civilTime = CivilTime(iso8601: text) { return civilTime.unixMilliseconds }
        reader.fail(
            top.value("start"),
            "start",
            "expected an ISO-8601 UTC time such as 2024-11-07T00:00:00Z, got '\(text)'"
        )
        return ScenarioLoader.defaultStart
    }

    /// The patients, and every device's type by id; patient and device ids are unique.
    private func patients(
        _ top: Fields,
        population: PopulationMode,
        adherence: AdherenceMode
    ) -> ([PatientSpec], [String: (type: DeviceType, patient: Int)]) {
        var patients: [PatientSpec] = []
        var deviceIDs: [String: (type: DeviceType, patient: Int)] = [:]
        var patientIDs: Set<String> = []
        let nodes: any Sequence<(Int, Node)>
        if let patientNodes {
            nodes = patientNodes.read(by: reader)
        } else {
            guard let list = top.list("patients") else { return ([], [:]) }
            if list.isEmpty { reader.fail(top.value("patients"), "patients", "at least one patient is required") }
            nodes = list.enumerated().lazy.map { ($0.offset, $0.element) }
        }
        for (i, node) in nodes {
            guard var loaded = patient(node, "patients[\(i)]", adherence: adherence) else { continue }
            if population == .typical { loaded.drawn = [] }
            if !patientIDs.insert(loaded.id).inserted {
                reader.fail(node, "patients[\(i)].id", "duplicate patient id '\(loaded.id)'")
            }
            for device in loaded.devices {
                if deviceIDs[device.id] != nil {
                    reader.fail(
                        node,
                        "patients[\(i)].devices",
                        "duplicate device id '\(device.id)' (device ids are unique per scenario)"
                    )
                }
                deviceIDs[device.id] = (device.type, patients.count)
            }
            patients.append(loaded)
        }
        return (patients, deviceIDs)
    }

    private func checkOverlaps(_ entries: [TimelineEntry], _ nodes: [Node]) {
        for i in entries.indices {
            for j in entries.indices where j > i {
                switch (entries[i], entries[j]) {
                case let (.clinical(a), .clinical(b)):
                    guard a.patientID == b.patientID, let group = a.kind.conflictGroup, group == b.kind.conflictGroup,
                        a.start < b.end, b.start < a.end
                    else { continue }
                    reader.failAt(
                        line: b.line,
                        column: 3,
                        "timeline",
                        "\(b.kind.rawValue) at line \(b.line) overlaps \(a.kind.rawValue) at line \(a.line) on patient '\(a.patientID)': both set the \(group); move one so they do not overlap"
                    )
                case let (.fault(a), .fault(b)):
                    guard a.deviceID == b.deviceID, let group = a.kind.conflictGroup, group == b.kind.conflictGroup,
                        a.start < b.end, b.start < a.end
                    else { continue }
                    reader.failAt(
                        line: b.line,
                        column: 3,
                        "timeline",
                        "\(b.kind.rawValue) at line \(b.line) overlaps \(a.kind.rawValue) at line \(a.line) on device '\(a.deviceID)': both change the \(group); move one so they do not overlap"
                    )
                default: continue
                }
            }
        }
    }

    private func patient(_ node: Node, _ field: String, adherence: AdherenceMode) -> PatientSpec? {
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: [
                    "id", "profile", "baseline", "meals", "devices", "thresholds", "noise", "care-team", "escalation",
                ],
                required: ["id", "profile", "devices"]
            )
        else { return nil }
        let id = fields.string("id") ?? "?"
        if let problem = PatientIdentifier.problem(id) { reader.fail(fields.value("id"), fields.path("id"), problem) }
        let profile = fields.choice("profile", Profile.self, what: "profile") ?? .adult
        var baseline = Baseline.defaults(for: profile)
        var given: Set<BaselineField> = []
        if let baselineNode = fields.value("baseline") {
            (baseline, given) = BaselineBuilder(reader: reader)
                .build(baselineNode, fields.path("baseline"), defaults: baseline)
        }
        var meals: [MealSpec] = []
        let mealList = fields.list("meals")
        for (i, mealNode) in (mealList ?? []).enumerated() {
            let mealPath = fields.path("meals") + "[\(i)]"
            guard
                let meal = reader.mapping(
                    mealNode,
                    mealPath,
                    allowed: ["time", "carbs", "bolus"],
                    required: ["time", "carbs"]
                )
            else {
                continue
            }
            guard let timeNode = meal.value("time"), let tod = meal.timeOfDay(timeNode, meal.path("time")) else {
                continue
            }
            let carbs = meal.number("carbs", in: 0...300, unit: "g") ?? 0
            // Without a bolus, type 1 diabetes doses by the patient's carbohydrate ratio (when the
            // scenario is generated: the ratio may be drawn); other patients take none.
            let bolus = meal.has("bolus") ? meal.number("bolus", in: 0...50, unit: "U") : nil
            meals.append(MealSpec(timeOfDay: tod, carbs: carbs, bolus: bolus))
        }
        var devices: [DeviceSpec] = []
        // `noise: off` on the patient: every device of theirs without its own `noise`.
        let noise = DeviceOptions.noise(fields, reader) ?? true
        if let list = fields.list("devices") {
            if list.isEmpty {
                reader.fail(fields.value("devices"), fields.path("devices"), "at least one device is required")
            }
            for (i, d) in list.enumerated() {
                let path = fields.path("devices") + "[\(i)]"
                guard var dev = device(d, path, baseline: baseline, profile: profile, adherence: adherence) else {
                    continue
                }
                if d.mapping?["noise"] == nil { dev.noise = noise }
                devices.append(dev)
            }
        }
        let plan: MealPlan = mealList == nil ? .usual : .listed(meals)
        var spec = PatientSpec(id: id, profile: profile, baseline: baseline, meals: plan, devices: devices)
        spec.drawn = BaselineField.drawable.subtracting(given)
        spec.thresholds =
            fields.value("thresholds").map { personalLimits($0, fields.path("thresholds"), profile: profile) } ?? []
        spec.careTeam = careTeam(fields)
        spec.escalation = escalation(fields, id: id, team: spec.careTeam)
        return spec
    }

    private func device(
        _ node: Node,
        _ field: String,
        baseline: Baseline,
        profile: Profile,
        adherence: AdherenceMode
    ) -> DeviceSpec? {
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: [
                    "id", "type", "transport", "cadence", "schedule", "mode", "battery", "batteryDrainPerDay", "trace",
                    "adherence",
                ] + DeviceOptions.keys,
                required: ["id", "type"]
            )
        else { return nil }
        let id = fields.string("id") ?? "?"
        if id.contains("/") { reader.fail(fields.value("id"), fields.path("id"), "device ids must not contain '/'") }
        guard let type = fields.choice("type", DeviceType.self, what: "device type") else { return nil }
        let defaults = DeviceDefaults.of(type, baseline: baseline)
        let transport = transport(fields, type, defaults)
        let cadence = cadence(fields, type, defaults)
        let scheduled = schedule(fields, type, defaults)
        let continuous = continuousMode(fields, type)
        let schedule = continuous ? [] : scheduled
        let battery = fields.number("battery", in: 0...100, unit: "%") ?? 95
        let drain = fields.number("batteryDrainPerDay", in: 0...100, unit: "%/day") ?? defaults.drainPerDay
        var spec = DeviceSpec(
            id: id,
            type: type,
            transport: transport,
            cadence: cadence,
            schedule: schedule,
            continuous: continuous,
            battery: battery,
            batteryDrainPerDay: drain
        )
        DeviceOptions(reader: reader).read(fields, into: &spec)
        if fields.has("trace") { spec.trace = DeviceTrace.read(fields, type: type, reader: reader) }
        spec.adherence =
            AdherenceReader(reader: reader).read(fields, device: spec, profile: profile)
            ?? (adherence == .usual && Adherence.applies(to: spec) ? .usual(for: profile) : .exact)
        return spec
    }

    private func transport(_ fields: Fields, _ type: DeviceType, _ defaults: DeviceDefaults) -> Transport {
        let transport = fields.choice("transport", Transport.self, what: "transport") ?? defaults.transport
        if type.isBluetooth == false, transport == .ble {
            reader.fail(
                fields.value("transport"),
                fields.path("transport"),
                "\(type.rawValue) has no Bluetooth interface; valid: https, mqtt"
            )
        }
        if type == .phoneBridge, transport == .mqtt {
            reader.fail(
                fields.value("transport"),
                fields.path("transport"),
                "phone-bridge posts to the VitalEdge HTTPS endpoints (the VitalEdge SDS and RSD); valid: https"
            )
        }
        return transport
    }

    private func cadence(_ fields: Fields, _ type: DeviceType, _ defaults: DeviceDefaults) -> VirtualDuration {
        let cadence = fields.duration("cadence") ?? defaults.cadence
        if type == .phoneBridge, !(VirtualDuration.minutes(1)...VirtualDuration.minutes(60)).contains(cadence) {
            reader.fail(
                fields.value("cadence"),
                fields.path("cadence"),
                "the VitalEdge IoT interval is 1 to 60 minutes (the VitalEdge RSD §2.3.1), got \(cadence)"
            )
            return .minutes(5)
        }
        if type == .heartRateStrap, cadence < .seconds(1) {
            reader.fail(
                fields.value("cadence"),
                fields.path("cadence"),
                "a heart-rate strap notifies at most once per second; valid: 1s or more"
            )
        }
        return cadence
    }

    /// Times of day of a scheduled device (empty when it has a cadence); a spot-check oximeter
    /// without either measures at 08:00, 14:00 and 20:00.
    private func schedule(_ fields: Fields, _ type: DeviceType, _ defaults: DeviceDefaults) -> [Int64] {
        if let list = fields.list("schedule") {
            let schedule = list.enumerated().compactMap {
                fields.timeOfDay($0.element, fields.path("schedule") + "[\($0.offset)]")
            }.sorted()
            // An empty list (not one whose times were each refused above) is its own mistake.
            if list.isEmpty {
                reader.fail(
                    fields.value("schedule"),
                    fields.path("schedule"),
                    "a schedule needs at least one time of day"
                )
            }
            if fields.has("cadence") {
                reader.fail(
                    fields.value("schedule"),
                    fields.path("schedule"),
                    "give either cadence or schedule, not both"
                )
            }
            return schedule
        }
        if fields.has("cadence") { return [] }
        if type == .pulseOximeter { return [8 * 3_600_000, 14 * 3_600_000, 20 * 3_600_000] }
        return defaults.schedule
    }

    /// A pulse oximeter's `mode`: true for continuous, false for spot-check (the default).
    private func continuousMode(_ fields: Fields, _ type: DeviceType) -> Bool {
        guard let mode = fields.string("mode") else { return false }
        if type != .pulseOximeter {
            reader.fail(fields.value("mode"), fields.path("mode"), "mode applies only to pulse-oximeter")
        } else if mode == "continuous" {
            return true
        } else if mode != "spot-check" {
            reader.fail(
                fields.value("mode"),
                fields.path("mode"),
                "unknown mode '\(mode)'; valid: spot-check, continuous"
            )
        }
        return false
    }
}

/// Per-type device defaults.
public struct DeviceDefaults: Sendable {
    /// The default transport.
    public var transport: Transport
    /// The default cadence.
    public var cadence: VirtualDuration
    /// The default spot-check schedule (ms after midnight).
    public var schedule: [Int64]
    /// The default battery drain per day, %.
    public var drainPerDay: Double

    /// The defaults of a device type (cadences from the reference notes and the VitalEdge documents).
    public static func of(_ type: DeviceType, baseline: Baseline) -> DeviceDefaults {
        let hour: Int64 = 3_600_000
        switch type {
        case .heartRateStrap: return DeviceDefaults(transport: .ble, cadence: .seconds(1), schedule: [], drainPerDay: 4)
        case .bpCuff:
            return DeviceDefaults(
                transport: .ble,
                cadence: .hours(12),
                schedule: [7 * hour, 19 * hour],
                drainPerDay: 0.5
            )
        case .glucometer:
            return DeviceDefaults(
                transport: .ble,
                cadence: .hours(6),
                schedule: [7 * hour, 12 * hour, 18 * hour, 22 * hour],
                drainPerDay: 0.3
            )
        case .cgm: return DeviceDefaults(transport: .ble, cadence: .minutes(5), schedule: [], drainPerDay: 8)
        case .pulseOximeter: return DeviceDefaults(transport: .ble, cadence: .seconds(1), schedule: [], drainPerDay: 6)
        case .thermometer: return DeviceDefaults(transport: .ble, cadence: .hours(4), schedule: [], drainPerDay: 0.5)
        case .weightScale:
            return DeviceDefaults(transport: .ble, cadence: .hours(24), schedule: [7 * hour], drainPerDay: 0.2)
        case .phoneBridge: return DeviceDefaults(transport: .https, cadence: .minutes(5), schedule: [], drainPerDay: 0)
        case .respirationMonitor:
            return DeviceDefaults(transport: .https, cadence: .minutes(5), schedule: [], drainPerDay: 0)
        case .symptomDiary, .ecgWatch, .equipmentLog:
            return DeviceDefaults(transport: .https, cadence: .minutes(1), schedule: [], drainPerDay: 0)
        case .feedingLog:
            let feeds = Int64(max(baseline.feedsPerDay, 1))
            return DeviceDefaults(
                transport: .https,
                cadence: VirtualDuration(milliseconds: 24 * hour / feeds),
                schedule: [],
                drainPerDay: 0
            )
        }
    }
}
