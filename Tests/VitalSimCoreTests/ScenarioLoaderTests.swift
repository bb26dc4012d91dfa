import Foundation
import TestFixtures
import VitalSimCore
import XCTest

/// The loader's strictness: every broken scenario gets file:line:column, the field, and what is valid.
final class ScenarioLoaderTests: XCTestCase {
    /// The scenario each test breaks (shared with ``ScenarioMistakeTests``).
    let valid = ScenarioMistakeTests.valid

    func issues(_ text: String) -> [ScenarioIssue] {
        do {
            _ = try ScenarioLoader.parse(text, file: "broken.yaml")
            return []
        } catch { return error.issues }
    }

    func testValidScenarioLoads() throws {
        let scenario = try ScenarioLoader.parse(valid, file: "demo.yaml")
        XCTAssertEqual(scenario.duration, VirtualDuration.minutes(90))
        XCTAssertEqual(scenario.seed, 7)
        XCTAssertEqual(scenario.patients[0].devices[0].cadence, .seconds(1))
        XCTAssertEqual(scenario.events(for: "501").first?.target, 140)
        XCTAssertEqual(scenario.golden, "golden/demo.golden.yaml")
    }

    func testDurations() {
        XCTAssertEqual(VirtualDuration(parsing: "90s")?.milliseconds, 90_000)
        XCTAssertEqual(VirtualDuration(parsing: "10m")?.milliseconds, 600_000)
        XCTAssertEqual(VirtualDuration(parsing: "1h30m")?.milliseconds, 5_400_000)
        XCTAssertEqual(VirtualDuration(parsing: "2d")?.milliseconds, 172_800_000)
        XCTAssertEqual(VirtualDuration(parsing: "250ms")?.milliseconds, 250)
        XCTAssertNil(VirtualDuration(parsing: "90"))
        XCTAssertNil(VirtualDuration(parsing: "1h1h"))
        XCTAssertNil(VirtualDuration(parsing: "ten minutes"))
        XCTAssertEqual(VirtualDuration.minutes(90).description, "1h30m")
    }

    func testUnknownKeyWithSuggestion() {
        let found = issues(valid.replacingOccurrences(of: "profile: adult", with: "profil: adult"))
        XCTAssertTrue(
            found.contains {
                $0.line == 6 && $0.column == 5 && $0.field == "patients[0].profil"
                    && $0.message.contains("did you mean 'profile'")
            },
            "\(found)"
        )
    }

    /// A duplicate key is reported where it repeats, not at the top of the file.
    func testDuplicateKeysAreReportedWhereTheyRepeat() {
        let topLevel = issues(valid + "\nseed: 8\n")
        XCTAssertEqual(topLevel.map { "\($0.line):\($0.column) \($0.field)" }, ["15:1 seed"], "\(topLevel)")
        XCTAssertTrue(topLevel.first?.message.contains("duplicate key 'seed'") ?? false)
        let nested = issues(
            valid.replacingOccurrences(
                of: "        type: heart-rate-strap",
                with: "        type: heart-rate-strap\n        id: hrm-2"
            )
        )
        XCTAssertEqual(nested.map { "\($0.line):\($0.column)" }, ["10:9"], "\(nested)")
        let flow = issues(valid.replacingOccurrences(of: "  - at: 10m", with: "  - {at: 10m, at: 20m}\n    # was:"))
        XCTAssertEqual(flow.first.map { "\($0.line):\($0.column)" }, "11:15", "\(flow)")
    }

    func testInvalidUTF8IsReportedAtItsByte() throws {
        let dir = NSTemporaryDirectory() + "utf8-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/latin1.yaml"
        try Data(Array("name: demo\ndescription: caf".utf8) + [0xE9] + Array("\nduration: 1h\n".utf8)).write(
            to: URL(fileURLWithPath: path)
        )
        do {
            _ = try ScenarioLoader.load(path: path)
            XCTFail("loaded a file that is not UTF-8")
        } catch {
            XCTAssertEqual(error.issues.map { "\($0.line):\($0.column)" }, ["2:17"])
            XCTAssertTrue(
                error.issues[0].message.contains("not UTF-8 text: byte 0xE9 at line 2, column 17"),
                "\(error)"
            )
        }
    }

    /// 100 issues are listed and the rest counted, so a hostile file cannot keep the loader busy.
    func testIssuesAreCappedAndCounted() {
        let many = "name: many\nduration: 1h\npatients: []\n" + (0..<5000).map { "k\($0): 1\n" }.joined()
        let found = issues(many)
        XCTAssertEqual(found.count, YAMLReader.maxIssues + 1)
        XCTAssertTrue(
            found.last?.message.contains("more issue(s) not listed") ?? false,
            "\(found.last.map(\.message) ?? "")"
        )
    }

    func testWrongTypeAndBadValues() {
        var found = issues(valid.replacingOccurrences(of: "seed: 7", with: "seed: seven"))
        XCTAssertEqual(found.first?.line, 2)
        XCTAssertEqual(found.first?.column, 7)
        XCTAssertEqual(found.first?.field, "seed")
        found = issues(valid.replacingOccurrences(of: "duration: 1h30m", with: "duration: 0s"))
        XCTAssertTrue(
            found.contains { $0.field == "duration" && $0.line == 3 && $0.message.contains("positive") },
            "\(found)"
        )
        found = issues(valid.replacingOccurrences(of: "    duration: 20m", with: "    duration: -5m"))
        XCTAssertTrue(found.contains { $0.field == "timeline[0].duration" && $0.line == 14 }, "\(found)")
        found = issues(valid.replacingOccurrences(of: "duration: 1h30m", with: "duration: [1]"))
        XCTAssertTrue(found.contains { $0.field == "duration" && $0.message.contains("a list") }, "\(found)")
    }

    func testUnknownDeviceTypeAndProfile() {
        var found = issues(valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: hr-strap"))
        XCTAssertTrue(
            found.contains {
                $0.line == 9 && $0.column == 15 && $0.field == "patients[0].devices[0].type"
                    && $0.message.contains("heart-rate-strap")
            },
            "\(found)"
        )
        found = issues(valid.replacingOccurrences(of: "profile: adult", with: "profile: elderly"))
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].profile" && $0.message.contains("chd-infant") },
            "\(found)"
        )
    }

    func testTransportMustSuitTheDevice() throws {
        var found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: phone-bridge\n        cadence: 5m\n        transport: mqtt"
            )
        )
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].devices[0].transport" && $0.message.contains("valid: https") },
            "\(found)"
        )
        found = issues(
            valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: feeding-log\n        transport: ble")
        )
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].devices[0].transport" && $0.message.contains("no Bluetooth") },
            "\(found)"
        )
        let mqtt = try ScenarioLoader.parse(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: heart-rate-strap\n        transport: mqtt"
            ),
            file: "m.yaml"
        )
        XCTAssertEqual(mqtt.patients[0].devices[0].transport, .mqtt)
    }

    /// The Health Hearts SRS's feeding method: only on a feeding log, one of bottle, breast, mixed.
    func testFeedingMethodBelongsToTheFeedingLog() throws {
        let mixed = try ScenarioLoader.parse(
            valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: feeding-log\n        method: mixed"),
            file: "f.yaml"
        )
        XCTAssertEqual(mixed.patients[0].devices[0].feedingMethod, .mixed)
        var found = issues(
            valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: feeding-log\n        method: formula")
        )
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].method" && $0.message.contains("valid: bottle, breast, mixed")
            },
            "\(found)"
        )
        found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: heart-rate-strap\n        method: breast"
            )
        )
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].method" && $0.message.contains("only to feeding-log")
            },
            "\(found)"
        )
    }

    func testSymptomDiaryAndEventSymptoms() throws {
        let diary = valid.replacingOccurrences(
            of: "type: heart-rate-strap",
            with: "type: symptom-diary\n        spontaneous: 0.5"
        )
        let scenario = try ScenarioLoader.parse(
            diary + "\n    symptoms: {palpitations: 1, chest-pain: 0.25}\n",
            file: "s.yaml"
        )
        let device = scenario.patients[0].devices[0]
        XCTAssertEqual(device.type, .symptomDiary)
        XCTAssertEqual(device.transport, .https)
        XCTAssertEqual(device.spontaneousSymptomsPerDay, 0.5)
        XCTAssertEqual(
            scenario.events(for: "501").first?.symptomChances,
            [SymptomChance(.palpitations, 1), SymptomChance(.chestPain, 0.25)]
        )
        XCTAssertEqual(
            try ScenarioLoader.parse(valid, file: "v.yaml").events(for: "501").first?.symptomChances,
            SymptomChance.defaults(for: .tachycardia),
            "without symptoms: the kind's defaults"
        )
        var found = issues(diary + "\n    symptoms: {palpitation: 1}\n")
        XCTAssertTrue(
            found.contains {
                $0.line == 16 && $0.field == "timeline[0].symptoms.palpitation"
                    && $0.message.contains("did you mean 'palpitations'")
            },
            "\(found)"
        )
        found = issues(diary + "\n    symptoms: {dizziness: 1.5}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[0].symptoms.dizziness" && $0.message.contains("0...1") },
            "\(found)"
        )
        found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: heart-rate-strap\n        spontaneous: 1"
            )
        )
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].spontaneous" && $0.message.contains("only to symptom-diary")
            },
            "\(found)"
        )
        found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: symptom-diary\n        transport: ble"
            )
        )
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].devices[0].transport" && $0.message.contains("no Bluetooth") },
            "\(found)"
        )
    }

    func testECGWatchRecordingsAndTriggers() throws {
        let watch = valid.replacingOccurrences(
            of: "type: heart-rate-strap",
            with: "type: ecg-watch\n        recordings: [\"20:00\", \"08:15\"]\n        triggers: [symptoms, schedule]"
        )
        let scenario = try ScenarioLoader.parse(watch, file: "w.yaml")
        XCTAssertEqual(scenario.patients[0].devices[0].ecgRecordings, [(8 * 60 + 15) * 60_000, 20 * 3_600_000])
        XCTAssertEqual(scenario.patients[0].devices[0].ecgTriggers, [.schedule, .symptoms])
        var found = issues(watch.replacingOccurrences(of: "[symptoms, schedule]", with: "[symptom]"))
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].triggers[0]" && $0.message.contains("irregular-rhythm")
            },
            "\(found)"
        )
        found = issues(watch.replacingOccurrences(of: "\"20:00\"", with: "\"25:00\""))
        XCTAssertTrue(found.contains { $0.field == "patients[0].devices[0].recordings[0]" }, "\(found)")
        found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: heart-rate-strap\n        triggers: [schedule]"
            )
        )
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].triggers" && $0.message.contains("only to ecg-watch")
            },
            "\(found)"
        )
    }

    func testCareTeamsHoldEachPersonOnceInOneRole() throws {
        let two = """
            name: team
            duration: 1h
            patients:
              - id: "501"
                profile: adult
                care-team:
                  - {id: ann, role: caregiver}
                  - {id: dr-osei, role: clinician}
                devices: [{id: hrm-1, type: heart-rate-strap}]
              - id: "502"
                profile: adult
                care-team: [{id: dr-osei, role: clinician}]
                devices: [{id: hrm-2, type: heart-rate-strap}]
            """
        let scenario = try ScenarioLoader.parse(two, file: "t.yaml")
        XCTAssertEqual(
            scenario.patients[0].careTeam,
            [CareTeamMember(id: "ann", role: .caregiver), CareTeamMember(id: "dr-osei", role: .clinician)]
        )
        XCTAssertEqual(scenario.careTeamPeople.map(\.person.id), ["ann", "dr-osei"])
        XCTAssertEqual(scenario.careTeamPeople.map(\.patients), [["501"], ["501", "502"]])
        let mistakes: [(String, String, Int, String, String)] = [
            ("role: caregiver", "role: nurse", 7, "patients[0].care-team[0].role", "unknown care role 'nurse'"),
            ("{id: ann, role: caregiver}", "{id: ann}", 7, "patients[0].care-team[0].role", "required key 'role'"),
            (
                "{id: ann, role: caregiver}", "{id: dr-osei, role: clinician}", 8, "patients[0].care-team[1].id",
                "already in this care team"
            ),
            (
                "[{id: dr-osei, role: clinician}]", "[{id: dr-osei, role: caregiver}]", 12,
                "patients[1].care-team[0].id", "is a clinician at line 8"
            ),
            (
                "{id: ann, role: caregiver}", "{id: \"502\", role: caregiver}", 7, "patients[0].care-team[0].id",
                "a patient's id"
            ),
            (
                "care-team: [{id: dr-osei, role: clinician}]", "care-team: []", 12, "patients[1].care-team",
                "at least one person"
            ),
        ]
        for (old, replacement, line, field, message) in mistakes {
            let found = issues(two.replacingOccurrences(of: old, with: replacement))
            XCTAssertTrue(
                found.contains { $0.line == line && $0.field == field && $0.message.contains(message) },
                "\(replacement): \(found)"
            )
        }
    }

    func testEquipmentLogNeedsItsItems() throws {
        let log = valid.replacingOccurrences(
            of: "type: heart-rate-strap",
            with: "type: equipment-log\n        equipment: {ng-tube: 8, oxygen: 0.25}"
        )
        let scenario = try ScenarioLoader.parse(log, file: "e.yaml")
        XCTAssertEqual(
            scenario.patients[0].devices[0].equipment,
            [EquipmentSetting(.oxygen, 0.25), EquipmentSetting(.ngTube, 8)]
        )
        var found = issues(valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: equipment-log"))
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].devices[0]" && $0.message.contains("needs 'equipment'") },
            "\(found)"
        )
        found = issues(log.replacingOccurrences(of: "oxygen: 0.25", with: "oxygen: 20"))
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].equipment.oxygen" && $0.message.contains("0...15 L/min")
            },
            "\(found)"
        )
        found = issues(log.replacingOccurrences(of: "ng-tube: 8", with: "ventilator: 1"))
        XCTAssertTrue(found.contains { $0.field == "patients[0].devices[0].equipment.ventilator" }, "\(found)")
        found = issues(
            valid.replacingOccurrences(
                of: "type: heart-rate-strap",
                with: "type: heart-rate-strap\n        equipment: {oxygen: 1}"
            )
        )
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].equipment" && $0.message.contains("only to equipment-log")
            },
            "\(found)"
        )
    }

    func testScriptedReadingsAreCheckedPerDeviceType() throws {
        let ok = try ScenarioLoader.parse(
            valid
                + "\n  - {at: 20m, device: hrm-1, reading: {heart-rate: 101}, to: {heart-rate: 120}, count: 3, every: 2m}\n",
            file: "s.yaml"
        )
        XCTAssertEqual(ok.scripts(for: "hrm-1").first?.reading(1).values, ["heart-rate": 110.5])
        XCTAssertEqual(ok.scripts(for: "hrm-1").first?.end, 24 * 60_000)
        var found = issues(valid + "\n  - {at: 20m, device: hrm-1, reading: {systolic: 120}}\n")
        XCTAssertTrue(
            found.contains {
                $0.field == "timeline[1].reading.systolic" && $0.message.contains("valid keys: heart-rate")
            },
            "\(found)"
        )
        found = issues(valid + "\n  - {at: 20m, device: hrm-1, reading: {heart-rate: 400}}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[1].reading.heart-rate" && $0.message.contains("20...300") },
            "\(found)"
        )
        found = issues(valid + "\n  - {at: 20m, device: hrm-1, reading: {heart-rate: 90}, to: {heart-rate: 80}}\n")
        XCTAssertTrue(found.contains { $0.field == "timeline[1].to" && $0.message.contains("count of 2") }, "\(found)")
        found = issues(valid + "\n  - {at: 80m, device: hrm-1, reading: {heart-rate: 90}, count: 20, every: 1m}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[1].count" && $0.message.contains("end of the scenario") },
            "\(found)"
        )
        found = issues(valid + "\n  - {at: 20m, device: nope, reading: {heart-rate: 90}}\n")
        XCTAssertTrue(found.contains { $0.field == "timeline[1].device" && $0.message.contains("hrm-1") }, "\(found)")
        let cuff = valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: bp-cuff")
        found = issues(cuff + "\n  - {at: 20m, device: hrm-1, reading: {systolic: 120, diastolic: 130}}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[1].reading" && $0.message.contains("below systolic") },
            "\(found)"
        )
        found = issues(cuff + "\n  - {at: 20m, device: hrm-1, reading: {systolic: 120}}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[1].reading.diastolic" && $0.message.contains("missing") },
            "\(found)"
        )
        let diary = valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: symptom-diary")
        found = issues(diary + "\n  - {at: 20m, device: hrm-1, reading: {heart-rate: 90}}\n")
        XCTAssertTrue(
            found.contains { $0.field == "timeline[1].reading" && $0.message.contains("cannot be scripted") },
            "\(found)"
        )
        found = issues(
            valid.replacingOccurrences(of: "    profile: adult", with: "    profile: adult\n    noise: quiet")
        )
        XCTAssertTrue(
            found.contains { $0.field == "patients[0].noise" && $0.message.contains("on or off") },
            "\(found)"
        )
        let quiet = try ScenarioLoader.parse(
            valid.replacingOccurrences(of: "    profile: adult", with: "    profile: adult\n    noise: off"),
            file: "q.yaml"
        )
        XCTAssertEqual(quiet.patients[0].devices[0].noise, false)
    }

    func testAPhaseIsBelowTheCadenceOrAnHourForASchedule() throws {
        let strap = "        type: heart-rate-strap"
        func with(_ device: String) -> String { valid.replacingOccurrences(of: strap, with: device) }
        let phased = try ScenarioLoader.parse(
            with(strap + "\n        cadence: 5m\n        phase: 2m30s"),
            file: "p.yaml"
        )
        XCTAssertEqual(phased.patients[0].devices[0].phase.milliseconds, 150_000)
        XCTAssertEqual(try ScenarioLoader.parse(valid, file: "p.yaml").patients[0].devices[0].phase, .zero)
        var found = issues(with(strap + "\n        cadence: 5m\n        phase: 5m"))
        XCTAssertTrue(
            found.contains {
                $0.line == 11 && $0.field == "patients[0].devices[0].phase"
                    && $0.message.contains("less than its cadence (5m)")
            },
            "\(found)"
        )
        found = issues(with("        type: bp-cuff\n        phase: 90m"))
        XCTAssertTrue(
            found.contains {
                $0.field == "patients[0].devices[0].phase"
                    && $0.message.contains("less than an hour (it has a schedule)")
            },
            "\(found)"
        )
        found = issues(with(strap + "\n        phase: -1s"))
        XCTAssertTrue(found.contains { $0.field == "patients[0].devices[0].phase" }, "\(found)")
    }

    func testTimelineReferencesMustExist() {
        var found = issues(valid.replacingOccurrences(of: "    patient: \"501\"", with: "    patient: \"999\""))
        XCTAssertTrue(
            found.contains { $0.line == 12 && $0.field == "timeline[0].patient" && $0.message.contains("valid: 501") },
            "\(found)"
        )
        found = issues(valid + "\n  - at: 5m\n    device: nope\n    fault: dropout\n    duration: 1m\n")
        XCTAssertTrue(found.contains { $0.field == "timeline[1].device" && $0.message.contains("hrm-1") }, "\(found)")
        found = issues(valid.replacingOccurrences(of: "at: 10m", with: "at: 2h"))
        XCTAssertTrue(
            found.contains { $0.field == "timeline[0].at" && $0.message.contains("after the end") },
            "\(found)"
        )
    }

    func testOverlappingContradictoryEvents() {
        let found = issues(valid + "\n  - at: 20m\n    patient: \"501\"\n    event: bradycardia\n    duration: 5m\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.line, 15)
        XCTAssertTrue(
            found.first?.message.contains("bradycardia at line 15 overlaps tachycardia at line 11") ?? false,
            "\(found)"
        )
        // Events of different signals may overlap.
        XCTAssertTrue(
            issues(valid + "\n  - at: 20m\n    patient: \"501\"\n    event: fever\n    duration: 30m\n").isEmpty
        )
        let faults = issues(
            valid
                + "\n  - at: 5m\n    device: hrm-1\n    fault: dropout\n    duration: 10m\n  - at: 10m\n    device: hrm-1\n    fault: disconnect\n    duration: 10m\n"
        )
        XCTAssertTrue(faults.contains { $0.message.contains("overlaps dropout") }, "\(faults)")
    }

    func testGlucoseBackfillWindowIsBounded() {
        let text = valid.replacingOccurrences(of: "type: heart-rate-strap", with: "type: cgm").replacingOccurrences(
            of: "duration: 1h30m",
            with: "duration: 5d"
        )
        let found = issues(text + "\n  - at: 1h\n    device: hrm-1\n    fault: disconnect\n    duration: 49h\n")
        XCTAssertTrue(found.contains { $0.field == "timeline[1].duration" && $0.message.contains("48h") }, "\(found)")
    }

    func testEventKeysAreCheckedPerKind() {
        let found = issues(
            valid.replacingOccurrences(of: "    duration: 20m", with: "    duration: 20m\n    carbs: 50")
        )
        XCTAssertTrue(
            found.contains { $0.field == "timeline[0].carbs" && $0.message.contains("unknown key") },
            "\(found)"
        )
    }

    func testYAMLSyntaxErrorHasPosition() {
        let found = issues("name: x\npatients: [\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertGreaterThan(found[0].line, 1)
        XCTAssertTrue(found[0].message.hasPrefix("invalid YAML"))
    }

    func testEveryShippedScenarioIsValid() throws {
        let dir = Fixtures.repositoryRoot + "/scenarios/core"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".yaml") }
        XCTAssertGreaterThanOrEqual(files.count, 12)
        for f in files { XCTAssertNoThrow(try ScenarioLoader.load(path: dir + "/" + f), f) }
    }

    func testDescriptionFormat() {
        let issue = ScenarioIssue(file: "a.yaml", line: 3, column: 5, field: "patients[0].id", message: "duplicate")
        XCTAssertEqual(issue.description, "a.yaml:3:5: error: patients[0].id: duplicate")
    }
}

/// Mutated scenario files must load or fail with issues — never crash — and every issue has a position.
final class ScenarioLoaderFuzzTests: XCTestCase {
    func testMutatedScenariosNeverCrash() throws {
        let dir = Fixtures.repositoryRoot + "/scenarios/core"
        var rng = SeededRandom(seed: 77)
        var failures = 0
        var successes = 0
        let tokens = [
            "-1", "0s", "abc", "[", "]", "{", ":", "999999999999999999999", "1e308", "\"\"", "~", "&a", "*a", "- x",
            "\t", "NaN", "-5m",
            "3650d", "9999d",
        ]
        for file in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where file.hasSuffix(".yaml") {
            let original = Array(try String(contentsOfFile: dir + "/" + file, encoding: .utf8))
            for _ in 0..<150 {
                var text = original
                for _ in 0..<Int(rng.next() % 3 + 1) {
                    let at = Int(rng.next() % UInt64(text.count))
                    switch rng.next() % 3 {
                    case 0: text.remove(at: at)
                    case 1: text.insert(contentsOf: Array(tokens[Int(rng.next() % UInt64(tokens.count))]), at: at)
                    default:
                        let end = min(text.count, at + Int(rng.next() % 12))
                        text.removeSubrange(at..<end)
                    }
                }
                do {
                    _ = try ScenarioLoader.parse(String(text), file: file)
                    successes += 1
                } catch {
                    failures += 1
                    XCTAssertFalse(error.issues.isEmpty)
                    for issue in error.issues { XCTAssertGreaterThan(issue.line, 0, issue.description) }
                }
            }
        }
        XCTAssertGreaterThan(failures, 500)
        XCTAssertGreaterThan(successes, 50)
    }
}
