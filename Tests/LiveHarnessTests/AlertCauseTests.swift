import Judge
import LiveHarness
import RunRecord
import Testing
import Traffic

/// Which request an observed alert came from (its reading → alert latency and its trace): the one
/// carrying its last evidence reading; for evidence of the SUT's own naming (VitalEdge heart rates
/// the reference SUT names `PATIENT/iot-heart-rate/TIME`), the patient's request its time points at;
/// for a BLE link's traffic, nothing (the link's schedule times it).
struct AlertCauseTests {
    static func request(_ patient: String, _ readings: [String], at t: Int64) -> SentRequest {
        SentRequest(
            PlannedRequest(
                path: "/api/iot-heart-rate",
                body: [],
                readings: readings.map { ($0, t) },
                patientID: patient,
                sendAt: t,
                expectedRejection: nil,
                deviceID: "d"
            )
        )
    }

    static let start: Int64 = 1_730_966_400_000
    static let sent = [
        request("1", ["1/d/1"], at: 0), request("2", ["2/d/1"], at: 0), request("1", ["1/d/2"], at: 60_000),
        request("1", ["1/d/3"], at: 120_000),
    ]

    static func alert(_ patient: String, evidence: [String], at t: Int64) -> ObservedAlert {
        ObservedAlert(
            alertID: "a",
            patientID: patient,
            rule: "hr.bradycardia",
            severity: "medium",
            raisedAt: start + t,
            evidence: evidence
        )
    }

    @Test func theLastEvidenceReadingsRequestAndElseThePatientsRequestAtTheAlertsTime() {
        let cited = Self.alert("1", evidence: ["1/d/1", "1/d/2"], at: 999_000)
        let ownIDs = Self.alert("1", evidence: ["1/iot-heart-rate/1730966460000"], at: 60_000)
        let between = Self.alert("1", evidence: ["1/iot-heart-rate/1730966430000"], at: 30_000)
        let none = Self.alert("1", evidence: [], at: 120_000)
        let unknown = Self.alert("9", evidence: ["9/x/1"], at: 0)
        let cause = AlertCause(
            sent: Self.sent,
            evidence: [cited, ownIDs].compactMap(\.evidence.last),
            start: Self.start,
            alongside: false
        )
        #expect(cause.request(of: cited) == 2)
        #expect(cause.request(of: ownIDs) == 2)
        #expect(cause.request(of: between) == 2, "the first of the patient's requests due at or after it")
        #expect(cause.request(of: none) == 3)
        #expect(cause.request(of: unknown) == nil, "no request of that patient")
        let late = Self.alert("1", evidence: ["1/iot-heart-rate/0"], at: 500_000)
        #expect(cause.request(of: late) == nil, "none due at or after it")
    }

    @Test func aBLELinksAlertIsLeftToTheLinksSchedule() {
        let linked = Self.alert("1", evidence: ["AA:BB:CC:DD:EE:FF/heart-rate/3"], at: 60_000)
        let cause = AlertCause(
            sent: Self.sent,
            evidence: ["AA:BB:CC:DD:EE:FF/heart-rate/3"],
            start: Self.start,
            alongside: true
        )
        #expect(cause.request(of: linked) == nil)
        #expect(
            cause.request(of: Self.alert("1", evidence: [], at: 60_000)) == 2,
            "an alert citing nothing still by its time"
        )
    }
}
