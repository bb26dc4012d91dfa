/// Alert priorities (IEC 60601-1-8 categories).
public enum Severity: String, Sendable, CaseIterable {
    /// Needs attention within hours (e.g. a device's low battery).
    case low
    /// Needs a clinician's attention soon (e.g. a sustained tachycardia).
    case medium
    /// Needs a clinician's attention now (e.g. a hypertensive crisis, a level 2 hypoglycaemia).
    case high
}
