import Generation
import VitalSimCore

/// All devices of a scenario, merged into one stream of readings in intended-emit-time order
/// (ties broken by patient then device order in the file, so the order is deterministic).
package struct ScenarioRun {
    package let scenario: Scenario
    package let seed: UInt64
    var emitters: [DeviceEmitter] = []
    var heads: [Reading?] = []
    var heap: [(Int64, Int)] = []
    /// Each patient's own baseline (the scenario's, with the values it left out drawn from the
    /// profile's population), in file order.
    package private(set) var baselines: [(patient: PatientSpec, baseline: Baseline)] = []

    /// Prepares a run; `seed` overrides the file's seed.
    package init(scenario: Scenario, seed: UInt64? = nil) {
        self.scenario = scenario
        self.seed = seed ?? scenario.seed
        let root = SeededRandom(seed: self.seed)
        let clock = DayClock(startUnixMilliseconds: scenario.startUnixMilliseconds)
        // The timeline by patient and device, read once: looking each one up in the whole timeline
        // (Scenario.events(for:) and the like) made a 100,000-device scenario's start quadratic.
        let timeline = TimelineIndex(scenario.timeline)
        emitters.reserveCapacity(scenario.patients.reduce(0) { $0 + $1.devices.count })
        for p in scenario.patients {
            let phys = PatientPhysiology(
                patient: p,
                events: timeline.events[p.id] ?? [],
                rng: root.split("patient:" + p.id),
                clock: clock,
                horizon: scenario.duration.milliseconds
            )
            baselines.append((p, phys.baseline))
            for d in p.devices {
                emitters.append(
                    DeviceEmitter(
                        spec: d,
                        physiology: phys,
                        faults: timeline.faults[d.id] ?? [],
                        scripts: (timeline.scripts[d.id] ?? []) + (d.trace?.readings ?? []),
                        duration: scenario.duration.milliseconds
                    )
                )
            }
        }
        heads = Array(repeating: nil, count: emitters.count)
        for i in emitters.indices { refill(i) }
    }

    /// The device specs in emitter order, with their patient ids.
    package var devices: [(patientID: String, spec: DeviceSpec)] { emitters.map { ($0.patientID, $0.spec) } }

    mutating func refill(_ i: Int) {
        heads[i] = emitters[i].next()
        if let head = heads[i] { push((head.intendedEmitTime, i)) }
    }

    mutating func push(_ e: (Int64, Int)) {
        heap.append(e)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if less(heap[child], heap[parent]) {
                heap.swapAt(child, parent)
                child = parent
            } else {
                break
            }
        }
    }

    func less(_ a: (Int64, Int), _ b: (Int64, Int)) -> Bool { a.0 != b.0 ? a.0 < b.0 : a.1 < b.1 }

    mutating func popMin() -> (Int64, Int)? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, less(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, less(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }

    /// The next reading of the scenario and the index of its device, or nil at the end.
    package mutating func next() -> (Reading, Int)? {
        guard let (_, source) = popMin() else { return nil }
        var taken: Reading?
        swap(&taken, &heads[source])
        guard let reading = taken else { return nil }
        refill(source)
        return (reading, source)
    }
}

/// A scenario's timeline by whom each entry concerns, each list in timeline order: clinical events
/// by patient id, faults and scripted readings by device id (a device's entries apply to every
/// device of that id, as ``ScenarioRun`` gives them).
struct TimelineIndex {
    var events: [String: [ClinicalEvent]] = [:]
    var faults: [String: [DeviceFault]] = [:]
    var scripts: [String: [ScriptedReading]] = [:]

    init(_ timeline: [TimelineEntry]) {
        for entry in timeline {
            switch entry {
            case .clinical(let event): events[event.patientID, default: []].append(event)
            case .fault(let fault): faults[fault.deviceID, default: []].append(fault)
            case .scripted(let script): scripts[script.deviceID, default: []].append(script)
            }
        }
    }

    /// The entries that concern `patient`: its events, and its devices' faults and scripts.
    func entries(of patient: PatientSpec) -> [TimelineEntry] {
        var deviceIDs: [String] = []
        for device in patient.devices where !deviceIDs.contains(device.id) { deviceIDs.append(device.id) }
        return (events[patient.id] ?? []).map(TimelineEntry.clinical)
            + deviceIDs.flatMap { id in
                (faults[id] ?? []).map(TimelineEntry.fault) + (scripts[id] ?? []).map(TimelineEntry.scripted)
            }
    }
}
