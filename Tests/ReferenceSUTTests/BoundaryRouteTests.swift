import Foundation
import InProcessSUT
import ReferenceEngine
import TestFixtures
import Testing
import VitalSimCore

/// Every threshold rule of the shipped rules file, one test case each, in-process (the routes
/// `vitalsim serve` runs): a reading exactly at the boundary raises the alert only when the
/// operator includes it (`<=`, `>=`), one resolution step
/// beyond always raises it, one step inside never does, and a persistence window is honoured to the
/// minute (nothing one minute before it ends; `raisedAt` = start + persistence, by device time).
/// Driven by `default-rules.yaml`, so an edited threshold or operator is tested as written.
struct BoundaryRouteTests {
    /// One patient's readings for one condition at one value.
    struct Probe {
        var patient: String
        var rule: AlertRule
        var profile: Profile
        var signal: Signal
        var value: Double
        var expected: Bool
    }

    /// Kind, unit and resolution step of each signal posted through `/api/v1/observations`.
    static let encoding: [Signal: (kind: String, unit: String, step: Double)] = [
        .heartRate: ("heart-rate", "/min", 1), .spo2: ("spo2", "%", 1), .temperature: ("temperature", "Cel", 0.1),
        .cgm: ("cgm", "mg/dL", 1), .glucose: ("glucose", "mg/dL", 1), .battery: ("battery", "%", 1),
        .respirationRate: ("respiration-rate", "/min", 1), .systolic: ("blood-pressure", "mm[Hg]", 1),
        .diastolic: ("blood-pressure", "mm[Hg]", 1),
    ]

    static func probes(_ rules: [AlertRule]) -> [Probe] {
        var probes: [Probe] = []
        for rule in rules {
            guard case let .threshold(conditions, _) = rule.kind, let profile = rule.profiles.first else { continue }
            for (n, c) in conditions.enumerated() {
                guard let step = encoding[c.signal]?.step else { continue }
                let outward = (c.comparison == .less || c.comparison == .lessOrEqual) ? -step : step
                let inclusive = c.comparison == .lessOrEqual || c.comparison == .greaterOrEqual
                var cases: [(String, Double, Bool)] = [("at", c.value, inclusive), ("beyond", c.value + outward, true)]
                if inclusive { cases.append(("inside", c.value - outward, false)) }
                for (name, value, expected) in cases {
                    let rounded = (value * 10).rounded() / 10
                    probes.append(
                        Probe(
                            patient: "b-\(rule.id)-\(n)-\(name)",
                            rule: rule,
                            profile: profile,
                            signal: c.signal,
                            value: rounded,
                            expected: expected
                        )
                    )
                }
            }
        }
        return probes
    }

    static let start = 1_730_966_400  // 2024-11-07T08:00:00Z

    static func reading(_ probe: Probe, minute: Int) -> String {
        let encoded = encoding[probe.signal]!
        let id = "\(probe.patient)/\(minute)"
        let ts = CivilTimeText.iso(start + minute * 60)
        // The other pressure stays 20 mmHg inside its own limit, so that only the probed one decides.
        let other = { (signal: Signal, fallback: Double) -> Int in
            guard case let .threshold(conditions, _) = probe.rule.kind,
                let condition = conditions.first(where: { $0.signal == signal })
            else {
                return Int(fallback)
            }
            return Int(condition.value) - 20
        }
        switch probe.signal {
        case .systolic:
            return
                #"{"readingId": "\#(id)", "patientId": "\#(probe.patient)", "deviceId": "bp", "kind": "blood-pressure", "systolic": \#(probe.value), "diastolic": \#(other(.diastolic, 80)), "unit": "mm[Hg]", "timestamp": "\#(ts)"}"#
        case .diastolic:
            return
                #"{"readingId": "\#(id)", "patientId": "\#(probe.patient)", "deviceId": "bp", "kind": "blood-pressure", "systolic": \#(other(.systolic, 160)), "diastolic": \#(probe.value), "unit": "mm[Hg]", "timestamp": "\#(ts)"}"#
        default:
            return observationJSON(
                id: id,
                patient: probe.patient,
                device: encoded.kind,
                kind: encoded.kind,
                value: probe.value,
                unit: encoded.unit,
                at: ts
            )
        }
    }

    /// The shipped threshold rules that have a boundary probe, by id (the test cases).
    static let thresholdRules: [String] = {
        let rules = (try? RuleSetLoader.defaultRules()) ?? []
        return Array(Set(probes(rules).map(\.rule.id))).sorted()
    }()

    @Test func everyThresholdRuleHasABoundaryProbe() {
        for id in [
            "hr.tachycardia", "hr.bradycardia", "bp.hypertensive-crisis", "bp.stage2-sustained", "temp.fever",
            "spo2.low",
            "spo2.below-copd-target",
            "glucose.level1-low", "glucose.level2-low", "glucose.urgent-low", "glucose.level2-high",
            "glucose.meter-level2-low",
            "infant.spo2-low", "infant.spo2-high", "device.low-battery",
        ] {
            #expect(Self.thresholdRules.contains(id), "\(id) has no boundary probe")
        }
    }

    @Test(arguments: thresholdRules)
    func aThresholdRuleFiresExactlyAtItsBoundary(_ id: String) async throws {
        let probes = Self.probes(try RuleSetLoader.defaultRules()).filter { $0.rule.id == id }
        #expect(!probes.isEmpty)
        var profiles: [String: Profile] = [:]
        for probe in probes { profiles[probe.patient] = probe.profile }
        try await InProcessSUT(profiles: profiles).test { sut in try await Self.check(probes, sut) }
    }

    /// Posts each probe's early readings, then the one completing its window, and checks the alerts.
    static func check(_ probes: [Probe], _ sut: SUTTestClient) async throws {
        // Readings up to one minute before the persistence window ends (every minute, or 60 spread
        // over a window of days, and the last minute): nothing yet.
        func minutes(_ probe: Probe) -> Int { Int(probe.rule.persistence / 60_000) }
        func earlyMinutes(_ probe: Probe) -> [Int] {
            let minute = minutes(probe)
            return minute == 0
                ? []
                : Array(Set(stride(from: 0, to: minute, by: max(1, minute / 60)).map { $0 } + [minute - 1])).sorted()
        }
        let early = probes.flatMap { p in earlyMinutes(p).map { Self.reading(p, minute: $0) } }
        for batch in stride(from: 0, to: early.count, by: 500).map({ Array(early[$0..<min($0 + 500, early.count)]) }) {
            let answer = try await sut.post("/api/v1/observations", "[" + batch.joined(separator: ",") + "]")
            #expect(answer.status == 200, "\(answer.text)")
        }
        if !early.isEmpty {
            let alerts = try await sut.get("/api/v1/alerts").objects
            for p in probes where minutes(p) > 0 {
                #expect(
                    !(alerts.contains { $0["patientId"] as? String == p.patient && $0["rule"] as? String == p.rule.id }),
                    "\(p.rule.id) raised before its \(minutes(p)) min persistence ended (\(p.signal.rawValue) \(p.value))"
                )
            }
        }
        // The reading that completes the window.
        let last = probes.map { Self.reading($0, minute: minutes($0)) }
        let answer = try await sut.post("/api/v1/observations", "[" + last.joined(separator: ",") + "]")
        #expect(answer.status == 200, "\(answer.text)")
        let alerts = try await sut.get("/api/v1/alerts").objects
        for p in probes {
            let raised = alerts.filter { $0["patientId"] as? String == p.patient && $0["rule"] as? String == p.rule.id }
            #expect(
                raised.count == (p.expected ? 1 : 0),
                "\(p.rule.id) with \(p.signal.rawValue) \(p.value) (\(p.profile.rawValue))"
            )
            guard let alert = raised.first else { continue }
            #expect(
                alert["raisedAt"] as? String
                    == CivilTimeText.iso(Self.start + minutes(p) * 60).replacingOccurrences(of: "Z", with: ".000Z")
            )
            #expect(alert["severity"] as? String == p.rule.severity.rawValue)
            #expect((alert["evidence"] as? [String])?.last == "\(p.patient)/\(minutes(p))")
        }
    }
}
