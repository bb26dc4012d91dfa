import VitalSimCore

/// An Apple-Watch-style ECG: 30 s of single-lead ECG at 512 Hz (``ECGSynthesizer``) on the
/// patient's own beats — the same beat sequence a heart-rate strap of the patient reports — and the
/// app's classification. It records:
/// - `schedule`: daily at the device's `recordings` times (default 09:00);
/// - `symptoms`: 2–10 min after the onset of palpitations, dizziness, chest pain or fainting
///   (the patient's symptoms, as a symptom diary reports them; the diary's `spontaneous` rate, or
///   0.05 per day without a diary);
/// - `irregular-rhythm`: 2–15 min after an irregular-rhythm notification, which comes 1–3 h into
///   an AF episode (the watch needs several irregular tachograms), if the episode still lasts.
/// Recordings less than a minute apart are one. Classification as the ECG app (2.0) reports it:
/// a poor recording (2 %, muscle noise five times higher) is `inconclusivePoorReading`; an
/// average rate below 50 or above 150 is inconclusive low or high; otherwise AF is recognised with
/// sensitivity 98.3 % (else `inconclusiveOther`) and sinus rhythm with specificity 99.6 % (else
/// called AF), the figures of the ECG app's clearance study.
struct ECGWatch: DeviceSensor {
    var noiseScale = 1.0
    let physiology: PatientPhysiology
    var rng: SeededRandom
    var starts: [(time: Int64, symptomatic: Bool)] = []
    var next = 0
    var beats: HeartBeatGenerator
    var recent: [Double] = []
    var primaryKind: VitalKind { .ecg }
    var storesRecords: Bool { true }
    static let length: Int64 = 30_000
    static let frequency = 512

    init(spec: DeviceSpec, physiology: PatientPhysiology, rng: SeededRandom, horizon: Int64) {
        self.physiology = physiology
        self.rng = rng
        beats = physiology.beats(from: 0)
        var plan = rng.split("triggers")
        var starts: [(Int64, Bool)] = []
        if spec.ecgTriggers.contains(.schedule) {
            let day: Int64 = 86_400_000
            let first = physiology.clock.startUnixMilliseconds
            let midnight = first - ((first % day) + day) % day - first
            var d = midnight
            while d < horizon {
                for tod in spec.ecgRecordings where d + tod >= 0 { starts.append((d + tod, false)) }
                d += day
            }
        }
        if spec.ecgTriggers.contains(.symptoms) {
            let rate = physiology.patient.devices.first { $0.type == .symptomDiary }?.spontaneousSymptomsPerDay ?? 0.05
            for r in SymptomReports.draw(physiology, spontaneousPerDay: rate, horizon: horizon)
            where r.symptom != .shortnessOfBreath {
                starts.append((r.onset + Int64(plan.uniform(2, 10) * 60_000), true))
            }
        }
        if spec.ecgTriggers.contains(.irregularRhythm) {
            for e in physiology.events where e.kind == .atrialFibrillation {
                let notified = e.start + Int64(plan.uniform(60, 180) * 60_000)
                if notified + 15 * 60_000 + Self.length < e.end {
                    starts.append((notified + Int64(plan.uniform(2, 15) * 60_000), false))
                }
            }
        }
        starts.sort { ($0.0, $0.1 ? 0 : 1) < ($1.0, $1.1 ? 0 : 1) }
        for s in starts where s.0 >= 0 && s.0 + Self.length < horizon {
            if let last = self.starts.last, s.0 - last.time < 60_000 { continue }
            self.starts.append((s.0, s.1))
        }
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        while next < starts.count, starts[next].time + Self.length <= t {
            let (start, symptomatic) = starts[next]
            next += 1
            let recording = record(at: start, symptomatic: symptomatic)
            let truth = physiology.ventricularRate(at: start + Self.length / 2)
            samples.append(Sample(offset: start - t, measurement: .ecg(recording), truth: truth, at: t, emitOffset: 0))
        }
    }

    /// The beats from 3 s before `start` to 3 s after the recording, advancing the generator.
    mutating func beatTimes(around start: Int64) -> [Double] {
        let from = Double(start - 3000)
        let to = Double(start + Self.length + 3000)
        recent.removeAll { $0 < from }
        while (recent.last ?? -.infinity) < to {
            _ = beats.next()
            if beats.time >= from { recent.append(beats.time) }
        }
        return recent
    }

    mutating func record(at start: Int64, symptomatic: Bool) -> ECGRecording {
        let times = beatTimes(around: start)
        let inside = times.filter { $0 >= Double(start) && $0 < Double(start + Self.length) }
        let poor = rng.chance(0.02)
        let synth = ECGSynthesizer(
            samplingFrequency: Self.frequency,
            breathingHz: physiology.respirationRate(at: start) / 60,
            poor: poor
        )
        let physiology = physiology
        let mv = synth.voltages(
            start: Double(start),
            count: Int(Self.length) * Self.frequency / 1000,
            beats: times,
            fibrillating: { physiology.atrialFibrillation(at: Int64($0)) != nil },
            rng: &rng
        )
        let rr = zip(inside.dropFirst(), inside).map { $0 - $1 }
        let hr = rr.isEmpty ? physiology.ventricularRate(at: start) : 60_000 / (rr.reduce(0, +) / Double(rr.count))
        let af = physiology.atrialFibrillation(at: start + Self.length / 2) != nil
        return ECGRecording(
            classification: classify(hr: hr, af: af, poor: poor),
            averageHeartRate: Int(hr.rounded()),
            samplingFrequency: Self.frequency,
            microvolts: mv.map { Int16(clamping: Int(($0 * 1000).rounded())) },
            symptomatic: symptomatic,
            beats: inside.map { $0 - Double(start) }
        )
    }

    mutating func classify(hr: Double, af: Bool, poor: Bool) -> ECGClassification {
        if poor { return .inconclusivePoorReading }
        if hr < 50 { return .inconclusiveLowHeartRate }
        if hr > 150 { return .inconclusiveHighHeartRate }
        if af { return rng.chance(0.983) ? .atrialFibrillation : .inconclusiveOther }
        return rng.chance(0.996) ? .sinusRhythm : .atrialFibrillation
    }
}
