import Foundation
import InProcessSUT
import Judge
import LiveHarness
import RunRecord
import SUTAdapter
import TestFixtures
import Testing
import Traffic

/// Misconfigurations that once read as clinical failures (exit 1) and now end the scenario
/// unjudged (exit 3) naming what to fix, or work as the user meant: one wrong route among working
/// ones, and variables in the alert URL. In-process against the reference SUT.
final class InProcessMisconfigurationTests {
    let directory = Fixtures.temporaryDirectory("in-process-misconfiguration")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func profile(_ text: String, name: String) throws -> SUTProfile {
        try InProcessRun.profile(text, name: name, in: directory)
    }

    /// Meter readings posted to a path the SUT does not have (every request answered 404) while the
    /// CGM's reach it: not validation mismatches and a missed alert, but exit 3 naming the route.
    @Test func aRouteRefusedThroughoutEndsTheRunNamingIt() async throws {
        let wrongPath = try profile(
            """
            name: one-wrong-route
            ingestion:
              routes:
                - {kinds: [glucose], path: /api/v1/observation, format: vitalsim-observation}
                - {path: /api/v1/observations, format: vitalsim-observation}
            """,
            name: "wrong-route.yaml"
        )
        let hypo = InProcessRun.path("core", "t1d-nocturnal-hypoglycemia")
        let error = try #require(
            await InProcessRun.unjudged(hypo, options: { $0.target.profile = wrongPath }),
            "a wrong route must not be judged clinically"
        )
        #expect(error.contains("to POST /api/v1/observation was refused with 404"), "\(error)")
        #expect(error.contains("while other routes worked"), "\(error)")
        #expect(error.contains("ingestion.routes"), "\(error)")
    }

    /// `{patient}` and `{since}` in the alert URL are substituted — the list read once per patient —
    /// rather than sent literally (which read no alert and reported a missed one).
    @Test func alertURLVariablesAreSubstitutedPerPatient() async throws {
        let perPatient = try profile(
            """
            name: per-patient-alerts
            alerts:
              url: /api/v1/alerts?patient={patient}&since={since}
              fields: {id: /alertId, patient: /patientId, rule: /rule, severity: /severity, raised-at: /raisedAt, evidence: /evidence}
            """,
            name: "per-patient.yaml"
        )
        #expect(perPatient.alerts.urls == ["/api/v1/alerts?patient={patient}&since={since}"])
        let expanded = perPatient.alerts.expanded(patients: ["504", "a b"], since: 1_730_937_600_000, run: "r1")
        #expect(
            expanded.urls == [
                "/api/v1/alerts?patient=504&since=2024-11-07T00%3A00%3A00.000Z",
                "/api/v1/alerts?patient=a%20b&since=2024-11-07T00%3A00%3A00.000Z",
            ]
        )
        let hypo = InProcessRun.path("core", "t1d-nocturnal-hypoglycemia")
        let verdict = try await InProcessRun.verdict(hypo, options: { $0.target.profile = perPatient })
        #expect(verdict.error == nil)
        #expect(InProcessRun.failures(verdict, latency: false) == [])
        #expect(verdict.checks.contains { $0.kind == .alert && $0.passed })
        let read = verdict.contract?.endpoints.map(\.name) ?? []
        // Sent literally, `{since}` is refused with 400 and `{patient}` matches no patient: the
        // verdict above (every expected alert met) shows both were substituted.
        #expect(read.contains("GET /api/v1/alerts?patient=…&since=…"), "\(read)")
    }

    /// An unknown variable is a load error naming the file, line and the variables there are.
    @Test func anUnknownAlertURLVariableIsALoadError() throws {
        #expect {
            try profile(
                """
                name: typo
                alerts:
                  url: /v2/alerts?patient_id={patient_id}
                  fields: {id: /id, patient: /p, rule: /r, severity: /s, raised-at: /t}
                """,
                name: "typo.yaml"
            )
        } throws: { error in
            let text = "\(error)"
            return text.contains("typo.yaml:3") && text.contains("unknown variable {patient_id}")
                && text.contains("{patient}, {since}, {run}")
        }
    }

    /// The same scenario run twice against one SUT that keeps its state: the second run finds the
    /// first run's alerts before sending anything, and says so (exit 3) — not `duplicate`, nor a
    /// pass on the old alerts.
    @Test func alertsLeftByAnEarlierRunAreNamedNotJudged() async throws {
        let crisis = InProcessRun.path("core", "hypertensive-crisis")
        let sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: crisis))
        let error: String? = try await sut.test { client in
            let first = try await InProcessRun.verdicts([crisis], on: client)
            #expect(first.first?.error == nil)
            #expect(first.first.map { InProcessRun.failures($0, latency: false) } == [])
            do {
                let second = try await InProcessRun.verdicts([crisis], on: client)
                return second.first?.error
            } catch let error as HarnessError {
                return error.description
            }
        }
        let message = try #require(error, "the second run must not be judged")
        #expect(
            message.contains(
                "the SUT already lists 1 alert(s) of this scenario's patients before the run sent anything"
            ),
            "\(message)"
        )
        #expect(message.contains("bp.hypertensive-crisis for patient 507"), "\(message)")
        #expect(message.contains("lifecycle.reset") && message.contains("{run} in lifecycle.patient-id"), "\(message)")
    }

    /// A suite against a SUT given by URL whose later scenario sends over MQTT without `--mqtt` is a
    /// usage error before its first scenario runs, not after the ones before it.
    @Test func aMissingBrokerIsSaidBeforeTheFirstScenario() async throws {
        let fever = InProcessRun.path("core", "fever-spike")
        let copd = InProcessRun.path("core", "copd-desaturation")
        let sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: fever))
        let outcome: String = try await sut.test { client in
            do {
                _ = try await InProcessRun.verdicts([fever, copd], on: client)
                return "ran"
            } catch let error as HarnessError {
                return error.description
            }
        }
        #expect(outcome.hasPrefix("copd-desaturation sends over MQTT: give "), "\(outcome)")
        let sent = try await sut.test { client in try await InProcessRun.verdicts([fever], on: client) }
        #expect(sent.first?.error == nil, "fever-spike alone needs no broker")
    }

    /// A scenario that cannot be judged does not stop the suite: the one after it still runs and
    /// is judged, and the unjudged one keeps its place in the list with its reason, and its
    /// evidence bundle holds every request it would have sent and why it was not judged.
    @Test func theSuiteGoesOnAfterAnUnjudgedScenario() async throws {
        let crisis = InProcessRun.path("core", "hypertensive-crisis")
        let fever = InProcessRun.path("core", "fever-spike")
        let sut = try InProcessSUT(scenario: TracedScenarioLoader.load(path: crisis))
        let evidence = directory + "/evidence"
        let verdicts = try await sut.test { client in
            _ = try await InProcessRun.verdicts([crisis], on: client)
            return try await InProcessRun.verdicts([crisis, fever], on: client) { $0.reports.evidence = evidence }
        }
        let bundle = evidence + "/hypertensive-crisis"
        let meta = try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/meta.json")))
                as? [String: Any]
        )
        #expect((meta["notJudged"] as? String)?.contains("already lists 1 alert(s)") == true, "\(meta)")
        #expect(meta["requests"] as? Int == 26 && meta["passed"] as? Bool == false, "\(meta)")
        let traffic = try String(contentsOfFile: bundle + "/traffic.jsonl", encoding: .utf8)
        #expect(traffic.split(separator: "\n").count == 26)
        let replayed = try EvidenceBundle(directory: bundle).replay().outcome
        guard case .identical(requests: 26, _) = replayed else {
            Issue.record("the unjudged scenario's bundle replays byte for byte: \(replayed)")
            return
        }
        #expect(verdicts.map(\.scenario) == ["hypertensive-crisis", "fever-spike"])
        let first = try #require(verdicts.first)
        #expect(first.error?.contains("already lists 1 alert(s)") == true, "\(first.error ?? "judged")")
        let second = try #require(verdicts.last)
        #expect(second.error == nil, "\(second.error ?? "")")
        #expect(second.checks.contains { $0.kind == .alert }, "the scenario after it was judged")
    }
}
