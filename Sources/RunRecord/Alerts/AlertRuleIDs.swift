/// The ids of VitalSim's alert rules (docs/alert-rules.md): the names an observed alert's rule is
/// mapped to, a conformance statement claims and a SUT profile's `rules:` map onto. The judge's
/// oracle derives exactly these (JudgeTests holds its rules to this list), in its order: the
/// threshold rules, then the windowed ones.
package enum AlertRuleIDs {
    /// Every rule id, the threshold rules first.
    package static let all: [String] = [
        "hr.tachycardia", "hr.bradycardia", "bp.hypertensive-crisis", "bp.stage2-sustained", "ecg.af-classified",
        "temp.fever", "spo2.low", "spo2.below-copd-target", "glucose.level1-low", "glucose.level2-low",
        "glucose.urgent-low", "glucose.level2-high", "glucose.meter-level2-low", "infant.spo2-low", "infant.spo2-high",
        "device.low-battery", "hr.af-suspected", "news2.urgent", "news2.emergency", "news2.urgent-copd",
        "glucose.urgent-low-soon", "glucose.fall-rate", "glucose.rise-rate", "infant.weight-loss-24h",
        "infant.poor-gain-3d", "weight.hf-gain", "infant.low-intake", "device.data-gap", "symptom.red-flag",
        "symptom.escalation", "hr.fluctuation",
    ]
}
