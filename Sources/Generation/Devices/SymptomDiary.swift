import VitalSimCore

/// A symptom report: what, how bad, when it began and when the patient logged it (virtual ms).
struct SymptomReport {
    var symptom: SymptomKind
    var severity: SymptomSeverity
    var onset: Int64
    var reported: Int64
}

/// A watch or phone app where the patient reports symptoms (the InTouch PRD's "Report a Symptom"): the
/// patient's symptoms (``SymptomReports``), each logged 2–30 min after its onset and sent at the
/// app's next sync (the device's cadence). A reading's time is the symptom's onset.
struct SymptomDiary: DeviceSensor {
    var noiseScale = 1.0
    var reports: [SymptomReport]
    var next = 0
    var primaryKind: VitalKind { .symptom }
    var storesRecords: Bool { true }

    init(physiology: PatientPhysiology, spontaneousPerDay: Double, horizon: Int64) {
        reports = SymptomReports.draw(physiology, spontaneousPerDay: spontaneousPerDay, horizon: horizon)
    }

    mutating func measure(at t: Int64, lowBattery: Bool, into samples: inout [Sample]) {
        while next < reports.count, reports[next].reported <= t {
            let report = reports[next]
            next += 1
            samples.append(
                Sample(
                    offset: report.onset - t,
                    measurement: .symptom(report.symptom, severity: report.severity),
                    truth: Double(report.severity.rawValue),
                    at: t,
                    emitOffset: 0
                )
            )
        }
    }
}

/// What a patient feels, drawn once per patient (its own random stream, so a symptom diary and an
/// ECG watch see the same symptoms) from the patient's clinical events and a spontaneous rate:
/// - each event gives each of its symptoms with the event's chance (``ClinicalEvent/symptomChances``),
///   beginning as the event takes hold (between half and all of its onset ramp, and 1–20 min after
///   its start at the earliest; 30–90 min after an instant event such as an insulin overdose),
///   severity mild 30 %, moderate 50 %, severe 20 %;
/// - in an event lasting 2 h or more, a symptom other than fainting is reported again, 1 h to 12 h
///   later while the event lasts (when more than 1 h of it is left), as bad or (60 %) one grade worse;
/// - symptoms with no event behind them arrive as a Poisson process (`spontaneous` per day):
///   palpitations or dizziness 35 % each, shortness of breath 20 %, chest pain 10 %, mild 75 %.
/// Each is logged 2–30 min after its onset. Sorted by the time it is logged.
struct SymptomReports {
    var rng: SeededRandom
    var reports: [SymptomReport] = []

    static func draw(_ physiology: PatientPhysiology, spontaneousPerDay: Double, horizon: Int64) -> [SymptomReport] {
        var symptomReports = SymptomReports(rng: physiology.stream("symptoms"))
        for event in physiology.events { symptomReports.eventReports(event) }
        symptomReports.spontaneousReports(perDay: spontaneousPerDay, horizon: horizon)
        return symptomReports.reports.enumerated().sorted {
            ($0.element.reported, $0.offset) < ($1.element.reported, $1.offset)
        }
        .map(\.element)
    }

    private mutating func eventReports(_ clinicalEvent: ClinicalEvent) {
        for chance in clinicalEvent.symptomChances {
            guard rng.chance(chance.probability) else { continue }
            let onset =
                clinicalEvent.kind.hasDuration
                ? clinicalEvent.start
                    + max(
                        Int64(Double(clinicalEvent.onset) * rng.uniform(0.5, 1.0)),
                        Int64(rng.uniform(1, 20) * 60_000)
                    )
                : clinicalEvent.start + Int64(rng.uniform(30, 90) * 60_000)
            let draw = rng.uniform()
            let severity: SymptomSeverity = draw < 0.3 ? .mild : (draw < 0.8 ? .moderate : .severe)
            add(chance.symptom, severity, onset: onset)
            guard clinicalEvent.duration >= 2 * 3_600_000, chance.symptom != .fainting else { continue }
            let span = min(12 * 3_600_000, clinicalEvent.end - onset)
            guard span > 3_600_000 else { continue }
            let later = onset + Int64(rng.uniform(3_600_000, Double(span)))
            let worse = rng.chance(0.6)
            add(
                chance.symptom,
                worse ? SymptomSeverity(rawValue: min(3, severity.rawValue + 1)) ?? .severe : severity,
                onset: later
            )
        }
    }

    private mutating func spontaneousReports(perDay rate: Double, horizon: Int64) {
        guard rate > 0 else { return }
        var t = 0.0
        while true {
            t += rng.exponential(mean: 86_400_000 / rate)
            guard t < Double(horizon) else { return }
            let draw = rng.uniform()
            let symptom: SymptomKind =
                draw < 0.35 ? .palpitations : (draw < 0.7 ? .dizziness : (draw < 0.9 ? .shortnessOfBreath : .chestPain))
            add(symptom, rng.chance(0.75) ? .mild : .moderate, onset: Int64(t))
        }
    }

    private mutating func add(_ symptom: SymptomKind, _ severity: SymptomSeverity, onset: Int64) {
        let reported = onset + Int64(rng.uniform(2, 30) * 60_000)
        reports.append(SymptomReport(symptom: symptom, severity: severity, onset: onset, reported: reported))
    }
}
