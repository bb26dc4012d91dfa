import Foundation
import InProcessSUT
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import TestFixtures
import Testing

/// The stored-data checks end to end in-process: the reference SUT's acknowledged readings read
/// back after each scenario (JSON, and FHIR search by LOINC code), and a read-back the profile gets
/// wrong ending the run unjudged rather than as lost readings.
final class InProcessStoredDataTests {
    let directory = Fixtures.temporaryDirectory("in-process-stored")
    let fever = InProcessRun.path("core", "fever-spike")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func profile(_ text: String, name: String) throws -> SUTProfile {
        try InProcessRun.profile(text, name: name, in: directory)
    }

    /// The stored-data checks of a verdict: name → detail.
    func stored(_ verdict: Verdict) -> [String: String] {
        Dictionary(
            verdict.checks.filter { $0.kind == .storedData }.map { ($0.name, $0.detail) },
            uniquingKeysWith: { a, _ in a }
        )
    }

    @Test func acknowledgedReadingsAreReadBackAsSent() async throws {
        let verdict = try await InProcessRun.verdict(InProcessRun.path("core", "vitaledge-daily-summary"))
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        let checks = stored(verdict)
        // Kept, unaltered, counted, held once; asked by its month, by the middle half of the run and by
        // its one valid kind (the only summary is corrupted).
        #expect(checks.count == 7, "\(checks)")
        #expect(checks["stored readings of patient 501 by period 2024-11-01T00:00:00Z to 2024-12-01T00:00:00Z"] != nil)
        #expect(
            checks["stored readings of patient 501 by kind heart-rate"]?.hasSuffix("all 555 held there among them")
                == true
        )
        #expect(checks["stored readings of patient 501 kept"] == "all 555 acknowledged reading(s) read back")
        #expect(checks["stored readings of patient 501 held once"] == "no acknowledged reading is held more than once")
        #expect(
            checks["stored reading counts of patient 501 per day and month"]
                == "555 reading(s) over 2 day(s), counted alike per day and month"
        )
        #expect(
            verdict.contract?.endpoints.contains {
                $0.role == .readBack && $0.name.hasPrefix("GET /api/v1/patients/{patient}/readings")
            }
                == true,
            "\(verdict.contract?.endpoints.map(\.name) ?? [])"
        )
    }

    @Test func fhirSearchReadsBackObservationsByLOINCCode() async throws {
        let fhir = try SUTProfileLoader.load(path: Fixtures.repositoryRoot + "/profiles/fhir-r4.yaml", environment: [:])
        let verdict = try await InProcessRun.verdict(fever, options: { $0.target.profile = fhir })
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(
            verdict.contract?.endpoints.contains { $0.role == .readBack && $0.name.hasPrefix("GET /fhir/Observation") }
                == true
        )
        let kept = stored(verdict)["stored readings of patient 508 unaltered"] ?? ""
        #expect(
            kept.hasSuffix("reading(s) read back with the value, unit and device time they were sent with"),
            "\(kept)"
        )
    }

    @Test func aReadBackTheProfileGetsWrongIsAMisconfiguration() async throws {
        let wrongURL = try profile(
            """
            name: wrong-read-back
            stored-readings:
              url: /api/v1/patients/{patient}/stored
              fields: {id: /readingId, time: /timestamp, values: /values}
            """,
            name: "wrong-url.yaml"
        )
        let url = try await InProcessRun.unjudged(fever, options: { $0.target.profile = wrongURL })
        #expect(
            url?.contains("the SUT answered 404 for patient 508, whose 74 reading(s) it acknowledged") == true,
            "\(url ?? "judged")"
        )
        let wrongList = try profile(
            """
            name: wrong-list
            stored-readings:
              url: /api/v1/patients/{patient}/readings
              list: /readings
              fields: {id: /readingId, time: /timestamp, values: /values}
            """,
            name: "wrong-list.yaml"
        )
        let list = try await InProcessRun.unjudged(fever, options: { $0.target.profile = wrongList })
        #expect(
            list?.contains("answered 200 without a list of readings at '/readings' (stored-readings.list)") == true,
            "\(list ?? "judged")"
        )
    }
}
