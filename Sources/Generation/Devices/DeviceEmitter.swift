import VitalSimCore

/// Runs one simulated device over a scenario: samples the patient's physiology at the device's
/// cadence or schedule, adds the device's own measurement error, applies the scenario's faults,
/// and yields readings in intended-emit-time order.
///
/// Memory is bounded by the device's pending window (readings held back by a disconnect or
/// reordering), never by the scenario's length.
package struct DeviceEmitter {
    package let spec: DeviceSpec
    package let patientID: String
    let physiology: PatientPhysiology
    let faults: FaultSchedule
    let duration: Int64
    var sensor: any DeviceSensor
    var rng: SeededRandom
    var faultRNG: SeededRandom
    var pending = PendingQueue()
    var nextMeasurement: Int64
    /// The scheduled time of the next measurement, which ``adherence`` moves or drops.
    var nominal: Int64
    let adherence: AdherencePlan
    var nextBattery: Int64
    /// The device's scripted readings (`reading:` in the timeline), the next one's script and index.
    let scripts: [ScriptedReading]
    var script = 0
    var scripted = 0
    /// A traced ECG watch's recordings (`apple-ecg`), and the next one's index.
    let electrocardiograms: [DeviceTrace.Electrocardiogram]
    var electrocardiogram = 0
    let primaryKind: VitalKind
    let identity: DeviceIdentity
    let storesRecords: Bool
    var scratch: [Sample] = []
    var counters = [UInt32](repeating: 0, count: VitalKind.allCases.count)
    /// Readings corrupted so far, by kind: a `mixed` corruption gives each reading of a kind the next
    /// JSON form in turn (a cuff's pressure indications do not shift its measurements' turn).
    var corrupted = [Int](repeating: 0, count: VitalKind.allCases.count)

    /// Creates the emitter of `spec` for the patient whose physiology is given.
    package init(
        spec: DeviceSpec,
        physiology: PatientPhysiology,
        faults: [DeviceFault],
        scripts: [ScriptedReading] = [],
        duration: Int64
    ) {
        self.spec = spec
        self.patientID = physiology.patient.id
        self.physiology = physiology
        self.faults = FaultSchedule(faults)
        self.duration = duration
        rng = physiology.stream("device:" + spec.id)
        faultRNG = rng.split("faults")
        sensor = SensorFactory.make(spec, physiology: physiology, rng: rng.split("sensor"), horizon: duration)
        primaryKind = sensor.primaryKind
        identity = DeviceIdentity(patientID: physiology.patient.id, deviceID: spec.id, deviceType: spec.type)
        storesRecords = sensor.storesRecords
        // A traced device sends its recording and measures nothing itself.
        nominal = spec.trace == nil ? Schedule.first(spec, clock: physiology.clock) : .max
        adherence = AdherencePlan(spec, patient: physiology.rng, clock: physiology.clock)
        nextMeasurement = nominal
        // Hourly battery reports keep the device's phase too (within the hour).
        nextBattery = spec.type.isBluetooth ? spec.phase.milliseconds % 3_600_000 : .max
        self.scripts = scripts.sorted { $0.start < $1.start }
        electrocardiograms = spec.trace?.electrocardiograms ?? []
        nextMeasurement = taken(after: -1)
    }

    /// When the next measurement is taken, from the scheduled time ``nominal`` on (later ones when
    /// it is missed), and after `previous`.
    mutating func taken(after previous: Int64) -> Int64 {
        while nominal < duration {
            if let actual = adherence.actual(nominal), let awake = awakeMoment(for: actual) {
                return max(awake, previous + 1)
            }
            nominal = Schedule.next(after: nominal, spec: spec, clock: physiology.clock)
        }
        return nominal
    }

    /// When the measurement its user means to take at `t` is taken: at `t`, unless the device is
    /// kept to a cadence by hand and they are asleep then. They take it after waking (checked in
    /// 5-minute steps), or not at all when the next one is due within half an interval of waking.
    /// An infant's carers keep the cadence through the night.
    func awakeMoment(for t: Int64) -> Int64? {
        guard adherence.byHandOnCadence, physiology.patient.profile != .chdInfant,
            physiology.sleepiness(at: t) >= 0.5
        else { return t }
        let latest = nominal + spec.cadence.milliseconds / 2
        var moment = t
        while moment < latest {
            moment += 300_000
            if physiology.sleepiness(at: moment) < 0.5 {
                return moment <= latest ? moment + adherence.delayAfterWaking(nominal) : nil
            }
        }
        return nil
    }

    /// When the next scripted reading (or traced ECG recording) is due (`.max` when none is left).
    var nextScripted: Int64 {
        let ecg = electrocardiogram < electrocardiograms.count ? electrocardiograms[electrocardiogram].start : .max
        return min(ecg, script < scripts.count ? scripts[script].time(scripted) : .max)
    }

    /// True when a script replaces the device's own measurement at `t`.
    func scriptCovers(_ t: Int64) -> Bool { scripts.contains { t >= $0.start && t <= $0.end } }

    /// Emits the next scripted reading (or traced ECG recording: measured from its start, sent at
    /// its end) and moves to the one after.
    mutating func emitScripted() {
        if electrocardiogram < electrocardiograms.count,
            script >= scripts.count || electrocardiograms[electrocardiogram].start <= scripts[script].time(scripted)
        {
            let ecg = electrocardiograms[electrocardiogram]
            electrocardiogram += 1
            let measurement = Measurement.ecg(ecg.recording)
            accept(
                Sample(
                    offset: 0,
                    measurement: measurement,
                    truth: Double(ecg.recording.averageHeartRate),
                    at: ecg.start,
                    emitOffset: ecg.recording.durationMilliseconds
                )
            )
            return
        }
        let scriptedSeries = scripts[script]
        let (time, values) = scriptedSeries.reading(scripted)
        if let measurement = ScriptedMeasurement.make(
            spec,
            values,
            at: time,
            slopePerMinute: scriptedSeries.trend ?? scriptedSeries.slopePerMinute("cgm")
        ) {
            accept(Sample(offset: 0, measurement: measurement, truth: measurement.primaryValue, at: time))
        }
        scripted += 1
        if scripted == scriptedSeries.count {
            script += 1
            scripted = 0
        }
    }

    /// The next reading in emit order, or nil when the scenario is over for this device.
    package mutating func next() -> Reading? {
        while true {
            let horizon = min(nextMeasurement, nextBattery, nextScripted)
            if let head = pending.peek, head.intendedEmitTime < horizon || horizon >= duration {
                return pending.pop()
            }
            if horizon >= duration { return nil }
            if nextBattery <= nextMeasurement, nextBattery <= nextScripted {
                emitBattery(at: nextBattery)
                nextBattery += 3_600_000
            } else if nextScripted <= nextMeasurement {
                emitScripted()
            } else {
                let due = nextMeasurement
                scratch.removeAll(keepingCapacity: true)
                sensor.measure(at: due, lowBattery: faults.lowBattery(at: due) != nil, into: &scratch)
                // Measured even under a script, so that the device's later readings are what they
                // would be without it; a script's window replaces them.
                if !scriptCovers(due) { for sample in scratch { accept(sample) } }
                nominal = Schedule.next(after: nominal, spec: spec, clock: physiology.clock)
                nextMeasurement = taken(after: due)
            }
        }
    }

    mutating func emitBattery(at t: Int64) {
        let level =
            faults.lowBattery(at: t)?.level ?? max(0, spec.battery - spec.batteryDrainPerDay * Double(t) / 86_400_000)
        accept(Sample(offset: 0, measurement: .battery(percent: Int(level.rounded())), truth: level, at: t))
    }

    mutating func accept(_ sample: Sample) {
        let time = sample.at + sample.offset
        let kind = sample.measurement.kind
        let seq = counters[kind.ordinal]
        counters[kind.ordinal] = seq + 1
        var reading = Reading(
            source: identity,
            secondary: kind != primaryKind,
            seq: seq,
            measuredAt: time,
            deviceTime: time + faults.skew(at: time),
            intendedEmitTime: sample.at + (sample.emitOffset ?? sample.offset),
            measurement: sample.measurement,
            truth: sample.truth
        )
        if faults.dropout(at: time) != nil { return }
        if let disconnect = faults.disconnect(at: time) {
            guard storesRecords, kind != .battery, kind != .cuffPressure else { return }
            reading.intendedEmitTime = disconnect.end + Int64(pending.count + 1) * 100
            reading.delivery.backfill = true
        }
        if let corruptFault = faults.corrupt(at: time), faultRNG.chance(corruptFault.probability) {
            let turn = corrupted[kind.ordinal]
            reading.delivery.corruption =
                corruptFault.corruption == .mixed
                ? Corruption.jsonForms[turn % Corruption.jsonForms.count] : corruptFault.corruption
            corrupted[kind.ordinal] = turn + 1
        }
        if let reorder = faults.outOfOrder(at: time), faultRNG.chance(reorder.probability), !reading.delivery.backfill {
            reading.intendedEmitTime += min(spec.cadence.milliseconds * 3 / 2, 90_000)
            reading.delivery.outOfOrder = true
        }
        pending.push(reading)
        if let duplicates = faults.duplicates(at: time), faultRNG.chance(duplicates.probability) {
            var dup = reading
            dup.intendedEmitTime += 200
            dup.delivery.duplicate = true
            pending.push(dup)
        }
    }
}

/// A measurement produced by a sensor, `offset` ms after the scheduled time `at`. It leaves the
/// device when it is measured, or `emitOffset` ms after `at` when given (a symptom reported after
/// its onset).
package struct Sample {
    package var offset: Int64
    package var measurement: Measurement
    package var truth: Double
    package var at: Int64
    package var emitOffset: Int64?
    package init(offset: Int64, measurement: Measurement, truth: Double, at: Int64, emitOffset: Int64? = nil) {
        self.offset = offset
        self.measurement = measurement
        self.truth = truth
        self.at = at
        self.emitOffset = emitOffset
    }
}

/// Readings held back for later emission, ordered by (intended emit time, insertion).
struct PendingQueue {
    private var items: [(Reading, Int)] = []
    private var counter = 0
    var count: Int { items.count }
    var peek: Reading? { items.first?.0 }

    mutating func push(_ reading: Reading) {
        counter += 1
        if items.isEmpty || items[items.count - 1].0.intendedEmitTime <= reading.intendedEmitTime {
            items.append((reading, counter))
            return
        }
        var remaining = items.count
        while remaining > 0, items[remaining - 1].0.intendedEmitTime > reading.intendedEmitTime { remaining -= 1 }
        items.insert((reading, counter), at: remaining)
    }

    mutating func pop() -> Reading? {
        if items.count == 1 { return items.removeLast().0 }
        return items.isEmpty ? nil : items.removeFirst().0
    }
}

/// Lookup of a device's faults by time.
struct FaultSchedule {
    let faults: [DeviceFault]
    init(_ faults: [DeviceFault]) { self.faults = faults }
    func find(_ kind: FaultKind, _ t: Int64) -> DeviceFault? {
        if faults.isEmpty { return nil }
        return faults.first { $0.kind == kind && $0.covers(t) }
    }
    func dropout(at t: Int64) -> DeviceFault? { find(.dropout, t) }
    func disconnect(at t: Int64) -> DeviceFault? { find(.disconnect, t) }
    func lowBattery(at t: Int64) -> DeviceFault? { find(.lowBattery, t) }
    func duplicates(at t: Int64) -> DeviceFault? { find(.duplicates, t) }
    func outOfOrder(at t: Int64) -> DeviceFault? { find(.outOfOrder, t) }
    func corrupt(at t: Int64) -> DeviceFault? { find(.corrupt, t) }
    func skew(at t: Int64) -> Int64 { find(.clockSkew, t)?.skew ?? 0 }
}

/// Measurement times: periodic by cadence, or daily at the schedule's times of day.
enum Schedule {
    /// The first measurement: one cadence (and the phase) after the start, or the schedule's first
    /// time (and the phase) after it.
    static func first(_ spec: DeviceSpec, clock: DayClock) -> Int64 {
        spec.schedule.isEmpty
            ? spec.cadence.milliseconds + spec.phase.milliseconds : next(after: -1, spec: spec, clock: clock)
    }

    static func next(after t: Int64, spec: DeviceSpec, clock: DayClock) -> Int64 {
        if spec.schedule.isEmpty { return t + spec.cadence.milliseconds }
        let day: Int64 = 86_400_000
        let abs = clock.startUnixMilliseconds + t
        let midnight = abs - ((abs % day) + day) % day
        for d in -1...1 {
            for tod in spec.schedule {
                let candidate = midnight + Int64(d) * day + tod + spec.phase.milliseconds - clock.startUnixMilliseconds
                if candidate > t { return candidate }
            }
        }
        return t + day
    }
}
