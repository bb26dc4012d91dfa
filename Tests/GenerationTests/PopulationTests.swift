import Generation
import Testing
import Traffic
import VitalSimCore

/// Each patient's baseline drawn from the profile's population (`Population`): deterministic per
/// seed and patient, leaving alone what the scenario gives, and a member of the profile.
@Suite struct PopulationTests {
    static func scenario(_ patients: String, population: String = "varied") throws -> Scenario {
        try ScenarioLoader.parse(
            """
            name: population
            duration: 1h
            population: \(population)
            patients:
            \(patients)
            """,
            file: "population.yaml"
        )
    }

    static func adult(_ id: String, baseline: String = "{}") -> String {
        """
          - id: "\(id)"
            profile: adult
            baseline: \(baseline)
            devices: [{id: phone-\(id), type: phone-bridge}]
        """
    }

    static func baselines(_ scenario: Scenario, seed: UInt64 = 9) -> [String: Baseline] {
        var out: [String: Baseline] = [:]
        for entry in ScenarioRun(scenario: scenario, seed: seed).baselines { out[entry.patient.id] = entry.baseline }
        return out
    }

    @Test func aPatientsDrawDependsOnlyOnTheSeedAndTheirId() throws {
        let two = Self.baselines(try Self.scenario(Self.adult("a") + "\n" + Self.adult("b")))
        let three = Self.baselines(try Self.scenario(Self.adult("c") + "\n" + Self.adult("a") + "\n" + Self.adult("b")))
        #expect(two["a"] == three["a"])
        #expect(two["b"] == three["b"])
        #expect(two["a"] != two["b"])
        let otherSeed = Self.baselines(try Self.scenario(Self.adult("a")), seed: 10)
        #expect(otherSeed["a"] != two["a"])
    }

    @Test func whatTheScenarioGivesIsKeptAndPinningOneValueMovesNoOther() throws {
        let free = Self.baselines(try Self.scenario(Self.adult("a")))["a"]!
        let pinned = Self.baselines(try Self.scenario(Self.adult("a", baseline: "{heartRate: 61, weight: 90}")))["a"]!
        #expect(pinned.heartRate == 61)
        #expect(pinned.weight == 90)
        #expect(pinned.systolic == free.systolic)
        #expect(pinned.temperature == free.temperature)
        #expect(pinned.height == free.height)
    }

    @Test func aTypicalPopulationIsTheProfilesDefaults() throws {
        let typical = Self.baselines(try Self.scenario(Self.adult("a"), population: "typical"))["a"]!
        #expect(typical == Baseline.defaults(for: .adult))
    }

    /// Two hundred adults: every value within ±2 SD of the profile's default (the draw's
    /// truncation), spread as the profile's SDs say, and systolic and diastolic correlated.
    @Test func twoHundredAdultsStayMembersOfTheirProfile() throws {
        let ids = (0..<200).map { "p\($0)" }
        let all = Self.baselines(try Self.scenario(ids.map { Self.adult($0) }.joined(separator: "\n")))
        let typical = Baseline.defaults(for: .adult)
        let rates = ids.map { all[$0]!.heartRate }
        #expect(rates.allSatisfy { abs($0 - typical.heartRate) <= 2 * 8.5 + 1e-9 })
        #expect((6.0...9.0).contains(Self.sd(rates)))
        let temperatures = ids.map { all[$0]!.temperature }
        #expect(temperatures.allSatisfy { $0 < 37.4 })
        let systolic = ids.map { all[$0]!.systolic }
        let diastolic = ids.map { all[$0]!.diastolic }
        #expect(systolic.allSatisfy { $0 <= typical.systolic + 26 + 1e-9 })
        #expect(zip(systolic, diastolic).allSatisfy { $0 - $1 >= 20 })
        #expect(RealismReport.correlation(systolic, diastolic) > 0.45)
        #expect((12.0...20.0).contains(Self.sd(ids.map { all[$0]!.weight })))
    }

    @Test func aCarbohydrateRatioFollowsTheSensitivity() throws {
        let ids = (0..<100).map { "d\($0)" }
        let patients = ids.map {
            """
              - id: "\($0)"
                profile: diabetic-cgm
                devices: [{id: cgm-\($0), type: cgm}]
            """
        }
        let all = Self.baselines(try Self.scenario(patients.joined(separator: "\n")))
        let sensitivity = ids.map { all[$0]!.insulinSensitivity }
        let ratio = ids.map { all[$0]!.carbRatio }
        #expect(RealismReport.correlation(sensitivity, ratio) > 0.8)
        #expect(ids.allSatisfy { all[$0]!.diabetes == .type1 })
    }

    static func sd(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
    }
}
