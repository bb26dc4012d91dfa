import Foundation
import Testing

@testable import VitalSimCore

/// Mistakes in a scenario file, one test case each: the loader refuses it with an issue at the
/// line of the mistake, naming the field and saying what is valid.
@Suite struct ScenarioMistakeTests {
    static let valid = """
        name: demo
        seed: 7
        duration: 1h30m
        patients:
          - id: "501"
            profile: adult
            devices:
              - id: hrm-1
                type: heart-rate-strap
        timeline:
          - at: 10m
            patient: "501"
            event: tachycardia
            duration: 20m
        """

    /// (the text replaced in the valid scenario, its replacement, the line, the field, text the message must hold).
    static let mistakes: [(String, String, Int, String, String)] = [
        ("name: demo", "name: demo scenario", 1, "name", "use letters, digits, '-' and '_' only"),
        ("name: demo\n", "", 1, "name", "required key 'name' is missing"),
        ("seed: 7", "seed: -7", 2, "seed", "-7 is out of range; valid: 0...9223372036854775807"),
        ("duration: 1h30m", "duration: 1h30m\nstart: yesterday", 4, "start", "expected an ISO-8601 UTC time"),
        ("duration: 1h30m", "duration: 1h30m\nnetwork: 5g", 4, "network", "unknown network preset '5g'"),
        ("duration: 1h30m", "duration: 1h30m\npopulation: clones", 4, "population", "varied, typical"),
        ("duration: 1h30m", "duration: 1h30m\nadherence: perfect", 4, "adherence", "usual, exact"),
        ("profile: adult", "profile: adult\n    baseline: {height: 300}", 7, "patients[0].baseline.height", "300"),
        ("duration: 1h30m", "duration: 1h30m\nnetwork: 4g, loss=2", 4, "network", "loss=2: expected a share"),
        ("patients:", "patients: 3\nunused:", 4, "patients", "expected a list, got the number 3"),
        (
            "patients:\n  - id: \"501\"\n    profile: adult\n    devices:\n      - id: hrm-1\n        type: heart-rate-strap\n",
            "patients: []\n", 4, "patients", "at least one patient is required"
        ),
        (
            "  - id: \"501\"", "  - id: \"501\"\n    profile: adult\n    devices: []\n  - id: \"501\"", 7,
            "patients[0].devices",
            "at least one device is required"
        ),
        // Patient ids a SUT's read-back and deletion routes could not serve.
        ("  - id: \"501\"", "  - id: \"5/01\"", 5, "patients[0].id", "a patient id must not contain '/'"),
        (
            "  - id: \"501\"", "  - id: \"\(String(repeating: "5", count: 65))\"", 5, "patients[0].id",
            "a patient id is 1 to 64 characters, got 65"
        ),
        (
            "    profile: adult", "    profile: adult\n    baseline: {heartRate: 400}", 7,
            "patients[0].baseline.heartRate", "400 is out of range; valid: 30...220 bpm"
        ),
        (
            "    profile: adult", "    profile: adult\n    baseline: {hartRate: 70}", 7,
            "patients[0].baseline.hartRate", "unknown key 'hartRate' (did you mean 'heartRate'?)"
        ),
        (
            "    profile: adult", "    profile: adult\n    meals: [{time: \"25:00\", carbs: 45}]", 7,
            "patients[0].meals[0].time", "expected a time of day HH:MM (00:00...23:59)"
        ),
        (
            "    profile: adult", "    profile: adult\n    meals: [{time: \"07:00\", carbs: -5}]", 7,
            "patients[0].meals[0].carbs", "-5 is out of range; valid: 0...300 g"
        ),
        (
            "    profile: adult", "    profile: adult\n    thresholds: {hr.tachycardia: 300}", 7,
            "patients[0].thresholds.hr.tachycardia", "300 is out of range; valid: 20...250 /min"
        ),
        (
            "    profile: adult", "    profile: adult\n    thresholds: {hr.tachycardy: 110}", 7,
            "patients[0].thresholds.hr.tachycardy", "(did you mean 'hr.tachycardia'?)"
        ),
        ("    profile: adult", "    profile: adult\n    noise: maybe", 7, "patients[0].noise", "noise is on or off"),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        cadence: 0s", 10,
            "patients[0].devices[0].cadence", "duration must be positive, got '0s'"
        ),
        (
            "        type: heart-rate-strap",
            "        type: heart-rate-strap\n        cadence: 1m\n        schedule: [\"07:00\"]",
            11, "patients[0].devices[0].schedule", "give either cadence or schedule, not both"
        ),
        (
            "        type: heart-rate-strap", "        type: thermometer\n        schedule: [\"7am\"]", 10,
            "patients[0].devices[0].schedule[0]", "expected a time of day HH:MM (00:00...23:59), got the string '7am'"
        ),
        (
            "        type: heart-rate-strap", "        type: thermometer\n        schedule: []", 10,
            "patients[0].devices[0].schedule", "a schedule needs at least one time of day"
        ),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        adherence: usual", 10,
            "patients[0].devices[0].adherence", "adherence applies to a device measured by hand at set times"
        ),
        (
            "        type: heart-rate-strap",
            "        type: thermometer\n        cadence: 10m\n        adherence: usual", 11,
            "patients[0].devices[0].adherence", "or any of them but the bp-cuff with a cadence of 1h or more"
        ),
        (
            "        type: heart-rate-strap", "        type: weight-scale\n        adherence: {missed: 2}", 10,
            "patients[0].devices[0].adherence.missed", "2 is out of range; valid: 0...1"
        ),
        (
            "        type: heart-rate-strap", "        type: weight-scale\n        adherence: sometimes", 10,
            "patients[0].devices[0].adherence", "unknown adherence 'sometimes'; valid: usual, exact"
        ),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        battery: 150", 10,
            "patients[0].devices[0].battery", "150 is out of range; valid: 0...100 %"
        ),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        mode: continuous", 10,
            "patients[0].devices[0].mode", "mode applies only to pulse-oximeter"
        ),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        real-time: off", 10,
            "patients[0].devices[0].real-time", "real-time applies only to phone-bridge"
        ),
        (
            "        type: heart-rate-strap", "        type: phone-bridge\n        daily-summary: never", 10,
            "patients[0].devices[0].daily-summary", "daily-summary is on or off, got 'never'"
        ),
        (
            "        type: heart-rate-strap", "        type: heart-rate-strap\n        transport: carrier-pigeon", 10,
            "patients[0].devices[0].transport", "unknown transport 'carrier-pigeon'; valid: ble, https, mqtt"
        ),
        (
            "    event: tachycardia", "    event: panic", 13, "timeline[0].event",
            "unknown event 'panic'; valid: tachycardia"
        ),
        (
            "    event: tachycardia", "    event: tachycardia\n    heartRate: 400", 14, "timeline[0].heartRate",
            "unknown key 'heartRate'; valid keys: at, event, patient"
        ),
        ("  - at: 10m", "  - at: -10m", 11, "timeline[0].at", "expected a duration such as 90s, 10m or 1h30m"),
        (
            "  - at: 10m\n    patient: \"501\"", "  - at: 10m\n    device: hrm-1", 11, "timeline[0].patient",
            "required key 'patient' is missing"
        ),
        (
            "    event: tachycardia\n    duration: 20m", "    fault: teleport\n    duration: 20m", 11,
            "timeline[0].device",
            "required key 'device' is missing"
        ),
    ]

    static func issues(_ text: String) -> [ScenarioIssue] {
        do {
            _ = try ScenarioLoader.parse(text, file: "broken.yaml")
            return []
        } catch { return error.issues }
    }

    @Test func theValidScenarioLoads() { #expect(Self.issues(Self.valid).isEmpty) }

    @Test(arguments: mistakes)
    func aMistakeIsNamedAtItsLineWithItsField(
        _ original: String,
        _ replacement: String,
        _ line: Int,
        _ field: String,
        _ message: String
    ) {
        let text = Self.valid.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.valid, "the edit applies")
        let found = Self.issues(text)
        // Composed one patient at a time (as a large scenario is, `PatientListChunks`): the same issues.
        var byPatient: [ScenarioIssue] = []
        do { _ = try ScenarioLoader.parse(text, file: "broken.yaml", byPatient: true) } catch {
            byPatient = error.issues
        }
        #expect(byPatient.map(\.description) == found.map(\.description))
        #expect(
            found.first?.line == line && found.first?.field == field && found.first?.message.contains(message) == true,
            "\(found.map(\.description))"
        )
    }
}
