import Foundation
import Testing

@testable import VitalSimCore

/// A large scenario is composed one patient at a time (``PatientListChunks``): the same scenario
/// and the same issues, at the same lines, as when the whole document is composed.
@Suite struct PatientListChunksTests {
    /// Three patients, comments and a blank line among them, and a timeline after the list.
    static let ward = """
        name: ward
        duration: 1h
        patients:
          # the first
          - id: "p1"
            profile: adult
            devices:
              - {id: hr-1, type: heart-rate-strap}
          - id: "p2"
            profile: copd

            devices:
              - id: oxi-2
                type: pulse-oximeter
        # a comment at the margin, inside the list
          - id: "p3"
            profile: adult
            care-team:
              - {id: nurse-1, role: clinician}
            devices:
              - {id: hr-3, type: heart-rate-strap}
        timeline:
          - {at: 10m, patient: "p3", event: tachycardia, duration: 20m}
        """

    static func issues(_ text: String, byPatient: Bool) -> [String] {
        do {
            _ = try ScenarioLoader.parse(text, file: "ward.yaml", byPatient: byPatient)
            return []
        } catch { return error.issues.map(\.description) }
    }

    @Test func theListIsCutAtItsItemsAndTheRestKeepsItsLines() throws {
        let chunks = try #require(PatientListChunks(Self.ward))
        #expect(chunks.items.map(\.linesBefore) == [4, 8, 15])
        #expect(chunks.items[1].text.hasPrefix("  - id: \"p2\"\n    profile: copd\n\n"))
        #expect(chunks.items[2].text.hasSuffix("{id: hr-3, type: heart-rate-strap}\n"))
        let rest = chunks.rest.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rest.count == Self.ward.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(rest[2] == "patients:" && rest[3] == "  # the first" && rest[4].isEmpty && rest[20].isEmpty)
        #expect(rest[21] == "timeline:")
    }

    @Test func theSameScenarioEitherWay() throws {
        let whole = try ScenarioLoader.parse(Self.ward, file: "ward.yaml", byPatient: false)
        let cut = try ScenarioLoader.parse(Self.ward, file: "ward.yaml", byPatient: true)
        #expect(cut.patients.map(\.id) == ["p1", "p2", "p3"])
        #expect(cut.patients.map { $0.devices.map(\.id) } == whole.patients.map { $0.devices.map(\.id) })
        #expect(cut.patients[2].careTeam.map(\.line) == [19])
        #expect(cut.patients[2].careTeam.map(\.line) == whole.patients[2].careTeam.map(\.line))
        #expect(cut.timeline.count == 1 && whole.timeline.count == 1)
    }

    /// A mistake in the third patient, the second and the timeline: the same issues, lines included.
    @Test(arguments: [
        ("profile: adult\n    care-team", "profile: grown-up\n    care-team", 17),
        ("type: pulse-oximeter", "type: pulse-oximeter\n        cadence: 0s", 15),
        ("{id: hr-3, type: heart-rate-strap}", "{id: hr-1, type: heart-rate-strap}", 16),
        ("id: \"p2\"", "id: \"p1\"", 9),
        ("patient: \"p3\"", "patient: \"p4\"", 23),
        ("role: clinician", "role: janitor", 19),
    ])
    func aMistakeIsNamedAtTheSameLine(_ original: String, _ replacement: String, _ line: Int) {
        let text = Self.ward.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.ward, "the edit applies")
        let cut = Self.issues(text, byPatient: true)
        #expect(!cut.isEmpty)
        #expect(cut == Self.issues(text, byPatient: false))
        #expect(cut.first?.hasPrefix("ward.yaml:\(line):") == true, "\(cut)")
    }

    /// 300 patients, so three groups of composition (``PatientNodes/group``): a mistake in the
    /// second and in the third is named at its line.
    @Test(arguments: [200, 299])
    func aMistakeInALaterGroupIsNamedAtItsLine(_ patient: Int) {
        let items = (0..<300).map { i in
            let profile = i == patient ? "grown-up" : "adult"
            return
                "  - id: \"p\(i)\"\n    profile: \(profile)\n    devices:\n      - {id: hr-\(i), type: heart-rate-strap}"
        }
        let text = "name: ward\nduration: 1h\npatients:\n" + items.joined(separator: "\n") + "\n"
        let cut = Self.issues(text, byPatient: true)
        #expect(cut == Self.issues(text, byPatient: false))
        #expect(cut.count == 1 && cut.first?.hasPrefix("ward.yaml:\(4 + 4 * patient + 1):14:") == true, "\(cut)")
    }

    /// Forms the cut does not take, and chunks that do not compose alone: the whole document is
    /// composed, so the outcome is the whole composition's.
    @Test(arguments: [
        ("  - id: \"p1\"", "  - &first\n    id: \"p1\""),  // an anchor: composes alone, harmless
        ("  - id: \"p2\"", "  - <<: *nothing\n    id: \"p2\""),  // an alias no chunk defines
        ("patients:", "---\npatients:"),  // a document marker
        ("duration: 1h", "duration: 1h\npatients: []"),  // the key twice
        ("    profile: copd", "    profile: [copd"),  // a syntax error in one chunk
    ])
    func otherFormsReadAsTheWholeDocument(_ original: String, _ replacement: String) {
        let text = Self.ward.replacingOccurrences(of: original, with: replacement)
        #expect(text != Self.ward, "the edit applies")
        #expect(Self.issues(text, byPatient: true) == Self.issues(text, byPatient: false))
    }

    @Test func aFlowListOrNoListIsNotCut() {
        #expect(PatientListChunks("name: a\npatients: [{id: p}]\n") == nil)
        #expect(PatientListChunks("name: a\npatients:\n  id: p\n") == nil)
        #expect(PatientListChunks("name: a\n") == nil)
        #expect(PatientListChunks("name: a\npatients:\n- id: p\n  profile: adult\n- id: q\n")?.items.count == 2)
    }

    /// Every scenario of the repository, the load ward's 2,500 patients included: the same patients,
    /// devices and timeline composed either way.
    @Test func everyScenarioOfTheRepositoryReadsTheSame() throws {
        let root =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/scenarios"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files.count > 30)
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            let whole = try ScenarioLoader.parse(text, file: file, byPatient: false)
            let cut = try ScenarioLoader.parse(text, file: file, byPatient: true)
            #expect(cut.patients.map(\.id) == whole.patients.map(\.id), "\(file)")
            #expect("\(cut.patients.map(\.devices))" == "\(whole.patients.map(\.devices))", "\(file)")
            #expect("\(cut.patients.map(\.thresholds))" == "\(whole.patients.map(\.thresholds))", "\(file)")
            #expect("\(cut.patients.map(\.careTeam))" == "\(whole.patients.map(\.careTeam))", "\(file)")
            // (Scripted readings hold dictionaries, whose printed order differs between instances.)
            #expect(cut.timeline.map(\.start) == whole.timeline.map(\.start), "\(file)")
            #expect(cut.careActions.map(\.line) == whole.careActions.map(\.line), "\(file)")
        }
    }
}
