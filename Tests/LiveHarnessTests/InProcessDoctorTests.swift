import Foundation
import InProcessSUT
import RunRecord
import SUTAdapter
import TestFixtures
import Testing
import Traffic
import VitalSimCore

/// `vitalsim doctor` against the reference SUT in-process: a checklist of what a run needs from a
/// SUT, each failure naming the endpoint, the status and what to change. TLS and MQTT brokers stay
/// live (`IntegrationTests.DoctorTests`).
final class InProcessDoctorTests {
    let directory = Fixtures.temporaryDirectory("in-process-doctor")
    let path = InProcessRun.path("core", "adult-tachycardia-episode")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The checklist for the scenario against a reference SUT configured by `configure`.
    func checklist(
        profile: SUTProfile = .vitalsim,
        faults: [String] = [],
        names: SettingNames = .words,
        sut configure: (inout InProcessSUT) -> Void = { _ in }
    ) async throws -> [Doctor.Check] {
        let scenario = try TracedScenarioLoader.load(path: path)
        var sut = try InProcessSUT(scenario: scenario)
        try sut.add(faults: faults)
        configure(&sut)
        return try await sut.test { client in
            var target = Doctor.Target(base: RouterExchange.base)
            target.exchange = RouterExchange(client)
            target.profile = profile
            target.names = names
            return await Doctor.examine(scenario, seed: nil, target: target)
        }
    }

    /// The check named `name` (its first, when a name repeats).
    func check(_ checks: [Doctor.Check], _ name: String) -> Doctor.Check? { checks.first { $0.name == name } }

    @Test func aHealthySUTPassesEveryCheck() async throws {
        let checks = try await checklist()
        #expect(checks.filter { !$0.passed } == [])
        #expect(
            checks.map(\.name) == [
                "reachable", "alert source", "alert names mapped",
                "accepts a valid reading on POST /api/v1/observations",
                "refuses an invalid body on POST /api/v1/observations",
                "accepts a valid reading on POST /api/iot-heart-rate",
                "refuses an invalid body on POST /api/iot-heart-rate", "stored readings read back",
            ]
        )
        let readBack = check(checks, "stored readings read back")?.detail ?? ""
        #expect(
            readBack.contains("62 stored reading(s) of 1 patient(s)")
                && readBack.contains("counts per day and month read")
        )
    }

    @Test func aReadBackThatListsNothingAcceptedIsNamed() async throws {
        let file = directory + "/wrong-read-back.yaml"
        try
            ("name: wrong-read-back\nstored-readings:\n  url: /api/v1/patients/{patient}/readings?kind=weight\n  list: /items\n"
            + "  fields: {id: /readingId, time: /timestamp, values: /values}\n").write(
                toFile: file,
                atomically: true,
                encoding: .utf8
            )
        let checks = try await checklist(profile: SUTProfileLoader.load(path: file, environment: [:]))
        let readBack = try #require(check(checks, "stored readings read back"), "\(checks.map(\.name))")
        #expect(!readBack.passed)
        #expect(
            readBack.detail.hasPrefix(
                "GET \(RouterExchange.base)/api/v1/patients/501/readings?kind=weight does not list "
            ),
            "the URL as asked, its patient filled in: \(readBack.detail)"
        )
        #expect(readBack.detail.contains("check stored-readings.url, list and fields.id"))
    }

    /// The probe is a reading the run will send and the read-back lists: of a claimed kind, of a
    /// kind `stored-readings.kinds` keeps, so that doctor is green where a run can be judged.
    @Test func theProbeIsAReadingTheProfileSendsAndReadsBack() async throws {
        let scenario = try TracedScenarioLoader.load(path: path)
        var profile = SUTProfile.vitalsim
        let fields = StoredReadingsSource.Fields(
            id: FieldSpec(try JSONPointer("/readingId")),
            time: FieldSpec(try JSONPointer("/timestamp")),
            values: .object(try JSONPointer("/values"))
        )
        profile.storedReadings = StoredReadingsSource(url: "/r/{patient}", list: .root, fields: fields)
        for kept in [VitalKind.battery, .heartRate] {
            profile.storedReadings?.kinds = [kept]
            let (probes, _) = Doctor.probes(scenario, seed: nil, profile: profile)
            let batch = try #require(probes.first { $0.path == "/api/v1/observations" })
            // The strap's batches mix heart rates and battery levels: one of them, else one heart rate only.
            let wanted = kept == .battery ? batch.kinds.contains(kept) : batch.kinds.allSatisfy { $0 == kept }
            #expect(wanted, "\(kept): \(Array(batch.kinds))")
        }
        profile.storedReadings = nil
        profile.conformance.kinds = ["battery"]
        let (claimed, _) = Doctor.probes(scenario, seed: nil, profile: profile)
        #expect(!claimed.isEmpty && claimed.allSatisfy { $0.kinds.allSatisfy { $0 == VitalKind.battery } })
    }

    /// A backend without an alert API (`alerts: none`) is reachable and has nothing to read.
    @Test func aSUTWithoutAnAlertSourceIsSaidSo() async throws {
        let file = directory + "/no-alerts.yaml"
        try "name: no-alerts\nalerts: none\n".write(toFile: file, atomically: true, encoding: .utf8)
        let profile = try SUTProfileLoader.load(path: file, environment: [:])
        #expect(profile.conformance.rules == [] && !profile.conformance.listsAlerts)
        let checks = try await checklist(profile: profile)
        #expect(checks.filter { !$0.passed } == [])
        #expect(check(checks, "alert source")?.detail.hasPrefix("none (alerts: none)") == true)
        #expect(check(checks, "alert names mapped") == nil)
    }

    @Test func aSUTThatWantsCredentialsIsNamedWithWhatToChange() async throws {
        // Settings named as the caller names them (the command line: its flags).
        let checks = try await checklist(names: SettingNames { "<\($0.rawValue)>" }, sut: { $0.requireCredentials() })
        let alerts = try #require(check(checks, "alert source"))
        #expect(
            !alerts.passed && alerts.detail.contains("GET \(RouterExchange.base)/api/v1/alerts answered 401"),
            "\(alerts)"
        )
        let accepts = try #require(check(checks, "accepts a valid reading on POST /api/v1/observations"), "\(checks)")
        #expect(
            !accepts.passed && accepts.detail.contains("answered 401") && accepts.detail.contains("or <header>)"),
            "\(accepts)"
        )
    }

    @Test func aBrokenAlertSourceAndASUTAcceptingInvalidBodiesAreNamed() async throws {
        let checks = try await checklist(faults: ["alert-api=garbage", "accept-invalid"])
        let alerts = try #require(check(checks, "alert source"))
        #expect(!alerts.passed && alerts.detail.contains("a body that is not JSON"), "\(alerts)")
        let refuses = try #require(check(checks, "refuses an invalid body on POST /api/v1/observations"), "\(checks)")
        #expect(!refuses.passed && refuses.detail.hasPrefix("the body cut in half: answered 200"), "\(refuses)")
        #expect(check(checks, "accepts a valid reading on POST /api/v1/observations")?.passed == true)
    }
}
