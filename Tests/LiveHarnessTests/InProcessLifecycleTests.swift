import Foundation
import InProcessSUT
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import TestFixtures
import Testing

/// A SUT profile's `lifecycle` against one long-lived reference SUT in-process: scenario after
/// scenario and run after run (patients enrolled with their profile and own limits, deleted after,
/// ids namespaced by run), and a lifecycle that cannot do its job ending the run unjudged.
final class InProcessLifecycleTests {
    let directory = Fixtures.temporaryDirectory("in-process-lifecycle")
    let shared = Fixtures.repositoryRoot + "/profiles/vitalsim-shared.yaml"

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func profile(_ text: String, name: String) throws -> SUTProfile {
        try InProcessRun.profile(text, name: name, in: directory)
    }

    /// The infant scenario (its rules apply only once the SUT knows the profile), a VitalEdge one
    /// (ids the SUT derives from the patient) and the hypertensive crisis.
    let suite = ["chd-infant-interstage", "vitaledge-daily-summary", "hypertensive-crisis"].map {
        InProcessRun.path("core", $0)
    }

    @Test func oneLongLivedSUTServesTheSuiteRunAfterRun() async throws {
        let shared = try SUTProfileLoader.load(path: shared, environment: [:])
        let keepText =
            try String(contentsOfFile: self.shared, encoding: .utf8).components(separatedBy: "  reset:")[0]
            + "alerts:\n  url: /api/v1/alerts\n  fields: {id: /alertId, patient: /patientId, rule: /rule, severity: /severity, "
            + "raised-at: /raisedAt, evidence: /evidence}\n"
        let keep = try profile(keepText, name: "keep.yaml")
        // No scenario: the SUT learns each patient's profile only from the enrolment.
        try await InProcessSUT().test { [suite] client in
            for run in 1...2 {
                let verdicts = try await InProcessRun.verdicts(suite, on: client) {
                    $0.target.profile = shared
                    $0.runID = "r1"
                }
                #expect(
                    verdicts.map(\.scenario) == [
                        "chd-infant-interstage", "vitaledge-daily-summary", "hypertensive-crisis",
                    ]
                )
                for v in verdicts {
                    #expect(
                        v.error == nil && InProcessRun.failures(v, latency: false) == [],
                        "run \(run): \(v.scenario)"
                    )
                }
            }
            // The reset deleted every patient with its readings and alerts.
            #expect(try await client.get("/api/v1/alerts").objects.isEmpty)
            #expect(try await client.get("/api/v1/patients/r1-hypertensive-crisis-507").status == 404)

            // Ids namespaced by run but nothing deleted: the next run's judge ignores what earlier runs left.
            for run in ["k1", "k2"] {
                let verdicts = try await InProcessRun.verdicts(suite, on: client) {
                    $0.target.profile = keep
                    $0.runID = run
                }
                for v in verdicts {
                    #expect(v.error == nil && InProcessRun.failures(v, latency: false) == [], "\(run): \(v.scenario)")
                }
            }
            let left = try await client.get("/api/v1/alerts").objects
            #expect(left.contains { $0["patientId"] as? String == "k1-hypertensive-crisis-507" })
            let kept = try await client.get("/api/v1/patients/k2-chd-infant-interstage-509")
            #expect(kept.status == 200 && kept.text.contains(#""profile":"chd-infant""#), "\(kept.text)")

            // Without the lifecycle the same SUT fails the infant scenario: its profile unknown,
            // earlier runs' alerts in the list.
            let plain = try await InProcessRun.verdicts(suite, on: client)
            #expect(!(plain.first?.passed ?? true), "chd-infant-interstage fails without the lifecycle")
        }
    }

    /// An enrolment step the SUT answers with 404: not judged, naming the step, the patient and
    /// the answer; nothing blamed on the SUT's clinical behaviour.
    @Test func aLifecycleStepTheSUTRefusesIsAMisconfiguration() async throws {
        let wrong = try profile(
            """
            name: wrong-path
            lifecycle:
              patient-id: "{run}-{patient}"
              enrol:
                - {method: PUT, path: "/api/v1/patient/{patient}", body: '{"profile": "{{profile}}"}'}
            """,
            name: "wrong.yaml"
        )
        let verdict = try await InProcessRun.verdict(
            InProcessRun.path("core", "hypertensive-crisis"),
            options: {
                $0.target.profile = wrong
                $0.runID = "w"
            }
        )
        let error = try #require(verdict.error)
        #expect(
            error.contains(
                "lifecycle: lifecycle.enrol[0] (PUT /api/v1/patient/{patient}) for patient 507 (w-507 at the SUT): PUT "
            )
                && error.contains("/api/v1/patient/w-507 answered 404 (expected 2xx)"),
            "\(error)"
        )
        #expect(InProcessRun.failures(verdict) == [])
    }

    /// A long-lived SUT (no scenario given to it) learns the patients' own limits at enrolment.
    @Test func aLongLivedSUTLearnsPersonalLimitsAtEnrolment() async throws {
        let shared = try SUTProfileLoader.load(path: shared, environment: [:])
        let limits = InProcessRun.path("limits", "personal-alert-limits")
        try await InProcessSUT().test { client in
            let verdicts = try await InProcessRun.verdicts([limits], on: client) {
                $0.target.profile = shared
                $0.runID = "l1"
            }
            let verdict = try #require(verdicts.first)
            #expect(verdict.error == nil)
            #expect(InProcessRun.failures(verdict, latency: false) == [])
        }
    }

    /// A profile whose enrolment leaves the limits out cannot test a patient who has them: the run
    /// stops before sending, naming the patient.
    @Test func anEnrolmentThatDropsTheLimitsIsAMisconfiguration() async throws {
        let text = try String(contentsOfFile: shared, encoding: .utf8).replacingOccurrences(
            of: #", "thresholds": {{thresholdsJSON}}"#,
            with: ""
        )
        let dropping = try profile(text, name: "dropping.yaml")
        let problem =
            "patient 601 has its own alert limits (thresholds:), but no lifecycle.enrol step passes them to the SUT"
        do {
            let verdict = try await InProcessRun.verdict(
                InProcessRun.path("limits", "personal-alert-limits"),
                options: { $0.target.profile = dropping }
            )
            #expect(verdict.error?.contains(problem) == true, "\(verdict.error ?? "judged")")
        } catch {
            #expect("\(error)".contains(problem), "\(error)")
        }
    }
}

extension InProcessLifecycleTests {
    /// Two scenarios with their own patients, one after the other against one SUT and a profile
    /// without a lifecycle: the alerts the first left are another scenario's patients', not
    /// spurious alerts of the second (which failed the second before).
    @Test func alertsOfPatientsOutsideTheScenarioAreNotJudged() async throws {
        let paths = ["fever-spike", "hypertensive-crisis"].map { InProcessRun.path("core", $0) }
        try await InProcessSUT().test { client in
            let verdicts = try await InProcessRun.verdicts(paths, on: client)
            #expect(verdicts.count == 2)
            for v in verdicts {
                #expect(v.error == nil, "\(v.scenario): \(v.error ?? "")")
                #expect(InProcessRun.failures(v, latency: false) == [], "\(v.scenario)")
            }
            // The first scenario's alerts are still listed while the second ran: left out, not judged.
            let listed = try await client.get("/api/v1/alerts").objects.compactMap { $0["patientId"] as? String }
            #expect(Set(listed) == ["508", "507"])
            #expect((verdicts.last?.contract?.outsideRun ?? 0) > 0)
        }
    }
}
