import VitalSimCore

/// A patient's own baseline, drawn from the population of their profile: people differ in resting
/// heart rate, heart-rate variability, blood pressure and its nocturnal dip, size, temperature,
/// breathing, activity and glucose regulation (sources in docs/physiology.md, "Between patients").
///
/// Each value the scenario leaves out (``PatientSpec/drawn``) is drawn around the profile's default
/// from the patient's own stream, so it depends only on the seed and the patient's id. Normal draws
/// are truncated at ±2 SD (redrawn beyond), so a patient stays a member of the profile the scenario
/// chose: a default adult is not made hypertensive, febrile or hypoxaemic by the draw.
package enum Population {
    /// Between-patient spread of one profile.
    struct Spread {
        /// SDs on the natural scale: heart rate (bpm), systolic and diastolic (mmHg), nocturnal dip
        /// (%), basal glucose (mg/dL), SpO2 (%), temperature (°C), respiration (/min), height (cm).
        var heartRate, systolic, diastolic, dip, glucose, spo2, temperature, respiration, height: Double
        /// Log-scale SDs (lognormal about the default): SDNN, LF/HF, BMI (or an infant's weight), daily
        /// steps, insulin sensitivity.
        var sdnn, lfHf, bodySize, steps, insulinSensitivity: Double
        /// Correlation of systolic and diastolic pressure between people.
        var pressureCorrelation = 0.65
        /// Log-scale SD of the carbohydrate ratio's mismatch with the patient's insulin sensitivity.
        var carbRatioMismatch = 0.12
        /// True when the body-size draw is the weight itself (infants), not a BMI.
        var weightIsDrawn = false
    }

    static func spread(_ profile: Profile) -> Spread {
        switch profile {
        case .adult:
            Spread(
                heartRate: 8.5,
                systolic: 13,
                diastolic: 8.5,
                dip: 5,
                glucose: 7,
                spo2: 1,
                temperature: 0.25,
                respiration: 1.8,
                height: 9.5,
                sdnn: 0.3,
                lfHf: 0.4,
                bodySize: 0.21,
                steps: 0.4,
                insulinSensitivity: 0.3
            )
        case .diabeticCGM:
            Spread(
                heartRate: 8.5,
                systolic: 14,
                diastolic: 9,
                dip: 5,
                glucose: 15,
                spo2: 1,
                temperature: 0.25,
                respiration: 1.8,
                height: 9.5,
                sdnn: 0.3,
                lfHf: 0.4,
                bodySize: 0.22,
                steps: 0.45,
                insulinSensitivity: 0.3
            )
        case .copd:
            Spread(
                heartRate: 9,
                systolic: 14,
                diastolic: 9,
                dip: 5,
                glucose: 10,
                spo2: 1,
                temperature: 0.25,
                respiration: 2.2,
                height: 9,
                sdnn: 0.35,
                lfHf: 0.4,
                bodySize: 0.22,
                steps: 0.5,
                insulinSensitivity: 0.3
            )
        case .chdInfant:
            Spread(
                heartRate: 9,
                systolic: 6,
                diastolic: 5,
                dip: 2,
                glucose: 8,
                spo2: 1.5,
                temperature: 0.15,
                respiration: 4,
                height: 2.5,
                sdnn: 0.3,
                lfHf: 0.3,
                bodySize: 0.12,
                steps: 0,
                insulinSensitivity: 0.3,
                weightIsDrawn: true
            )
        }
    }

    /// The patient's baseline: ``PatientSpec/baseline`` with every field of ``PatientSpec/drawn``
    /// drawn from `rng`. Every draw is made whether its field is drawn or not, so pinning one value
    /// does not change the others.
    package static func individual(_ patient: PatientSpec, rng: SeededRandom) -> Baseline {
        var draw = Draw(rng: rng, spread: spread(patient.profile), drawn: patient.drawn)
        var baseline = patient.baseline
        let s = draw.spread
        draw.normal(.heartRate, &baseline.heartRate, sd: s.heartRate)
        draw.lognormal(.hrvSDNN, &baseline.hrvSDNN, sd: s.sdnn)
        draw.lognormal(.lfHfRatio, &baseline.lfHfRatio, sd: s.lfHf)
        let zSystolic = draw.z()
        let zDiastolic =
            s.pressureCorrelation * zSystolic + (1 - s.pressureCorrelation * s.pressureCorrelation).squareRoot()
            * draw.z()
        draw.set(.systolic, &baseline.systolic, baseline.systolic + s.systolic * zSystolic)
        draw.set(.diastolic, &baseline.diastolic, baseline.diastolic + s.diastolic * Math.clamp(zDiastolic, -2, 2))
        if baseline.systolic - baseline.diastolic < 20 {
            if patient.drawn.contains(.diastolic) {
                baseline.diastolic = baseline.systolic - 20
            } else {
                baseline.systolic = baseline.diastolic + 20
            }
        }
        draw.normal(.nocturnalDip, &baseline.nocturnalDip, sd: s.dip)
        draw.normal(.glucose, &baseline.glucose, sd: s.glucose)
        draw.normal(.spo2, &baseline.spo2, sd: s.spo2)
        baseline.spo2 = min(baseline.spo2, 100)
        draw.normal(.temperature, &baseline.temperature, sd: s.temperature)
        draw.normal(.respirationRate, &baseline.respirationRate, sd: s.respiration)
        let typicalHeight = baseline.height
        draw.normal(.height, &baseline.height, sd: s.height)
        let zSize = draw.z()
        if s.weightIsDrawn {
            draw.set(.weight, &baseline.weight, baseline.weight * Math.exp(s.bodySize * zSize))
        } else {
            // Weight from a body-mass index drawn about the one the defaults imply.
            let bmi = baseline.weight / (typicalHeight * typicalHeight / 10_000) * Math.exp(s.bodySize * zSize)
            draw.set(.weight, &baseline.weight, bmi * baseline.height * baseline.height / 10_000)
        }
        draw.lognormal(.dailySteps, &baseline.dailySteps, sd: s.steps)
        baseline.dailySteps = baseline.dailySteps.rounded()
        draw.lognormal(.insulinSensitivity, &baseline.insulinSensitivity, sd: s.insulinSensitivity)
        // A carbohydrate ratio set for the patient's sensitivity, not quite right (Walsh & Roberts's
        // ratios are adjusted by trial): the more sensitive, the more grams a unit covers.
        let mismatch = Math.exp(s.carbRatioMismatch * draw.z())
        draw.set(.carbRatio, &baseline.carbRatio, baseline.carbRatio * baseline.insulinSensitivity * mismatch)
        return baseline
    }

    /// The draws of one patient, in a fixed order.
    struct Draw {
        var rng: SeededRandom
        let spread: Spread
        let drawn: Set<BaselineField>

        /// A standard normal truncated at ±2.
        mutating func z() -> Double {
            while true {
                let draw = rng.normal()
                if abs(draw) <= 2 { return draw }
            }
        }

        func set(_ field: BaselineField, _ value: inout Double, _ drawnValue: Double) {
            if drawn.contains(field) { value = drawnValue }
        }

        mutating func normal(_ field: BaselineField, _ value: inout Double, sd: Double) {
            let z = z()
            set(field, &value, value + sd * z)
        }

        mutating func lognormal(_ field: BaselineField, _ value: inout Double, sd: Double) {
            let z = z()
            set(field, &value, value * Math.exp(sd * z))
        }
    }
}
