import RunRecord
import Testing
import VitalSimCore

@Suite struct AreaObservationsTests {
    @Test func eachAreaKeepsItsOwnObservationByType() {
        var areas = AreaObservations()
        #expect(areas[StoredReadBack.self] == nil)
        var stored = StoredReadBack()
        stored.unknownPatients = ["501"]
        areas[StoredReadBack.self] = stored
        areas[DeletionObservation.self] = DeletionObservation(reads: [DeletedPatientRead(patient: "502")])
        #expect(areas[StoredReadBack.self]?.unknownPatients == ["501"])
        #expect(areas[DeletionObservation.self]?.reads.map(\.patient) == ["502"])
        #expect(areas[AccessMatrixObservation.self] == nil)
        areas[StoredReadBack.self] = nil
        #expect(areas[StoredReadBack.self] == nil)
        #expect(areas[DeletionObservation.self] != nil)
    }

    @Test(arguments: [(200, ReadingFate.acknowledged), (299, .acknowledged), (300, .rejected), (400, .rejected)])
    func aStatusDecidesTheReadingsFate(_ status: Int, _ fate: ReadingFate) {
        #expect(ReadingFate(status: status) == fate)
        #expect(ReadingFate(status: nil) == .failed)
    }

    @Test func theSignalThatNamesAReadingsKindWinsOverTheOthersItCarries() {
        #expect([Signal.systolic: 120, .diastolic: 80, .heartRate: 70].readingKind == .bloodPressure)
        #expect([Signal.spo2: 97, .heartRate: 70].readingKind == .spo2)
        #expect([Signal.heartRate: 70].readingKind == .heartRate)
        #expect([Signal.calories: 1900, .steps: 4000].primarySignal == .steps)
        #expect([Signal: Double]().readingKind == nil)
    }

    @Test func onlyTheSeverityIsUnmappedWhenTheRuleNeedsNoMapping() {
        var alert = ObservedAlert(
            alertID: "a1",
            patientID: "501",
            rule: "hr.tachycardia",
            severity: "medium",
            raisedAt: 0,
            evidence: []
        )
        #expect(!alert.onlySeverityUnmapped)
        alert.unmappedSeverity = "URGENT"
        alert.unmapped = "severity 'URGENT'"
        #expect(alert.onlySeverityUnmapped)
        alert.unmapped = "rule 'HIGH_HR'"
        #expect(!alert.onlySeverityUnmapped)
    }
}
