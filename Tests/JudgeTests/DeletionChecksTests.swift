import Judge
import RunRecord
import Testing

/// What is left of a deleted patient, judged: a 404 or an empty page passes, readings or alerts
/// still listed are `readable-after-deletion`, and a read that could not be made is skipped.
struct DeletionChecksTests {
    @Test func readingsOrAlertsLeftAfterDeletionFailAndAnEmptyAnswerPasses() {
        var gone = DeletedPatientRead(patient: "721")
        gone.readingsStatus = 404
        var empty = DeletedPatientRead(patient: "722")
        empty.readingsStatus = 200
        var readings = DeletedPatientRead(patient: "723")
        (readings.readingsStatus, readings.readingsListed) = (200, 12)
        var alerts = DeletedPatientRead(patient: "724")
        (alerts.readingsStatus, alerts.alertsListed) = (404, ["a-1", "a-2"])
        var unread = DeletedPatientRead(patient: "725")
        unread.unobservable = "not judged: GET … answered 503"
        let checks = DeletionArea().deletionChecks([gone, empty, readings, alerts, unread])
        #expect(checks.map(\.finding) == [nil, nil, .readableAfterDeletion, .readableAfterDeletion, nil])
        #expect(checks[2].detail == "the patient was deleted, but 12 stored reading(s) still listed")
        #expect(checks[3].detail.contains("2 alert(s) still listed (a-1, a-2)"))
        #expect(checks[4].skipped)
        #expect(checks.allSatisfy { $0.name.hasSuffix("readable after deletion") && $0.kind == .access })
        #expect(DeletionArea().requirements(of: checks[2]) { _ in [] } == ["access.deletion"])
    }
}
