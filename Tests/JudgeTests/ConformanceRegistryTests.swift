import Judge
import RunRecord
import Testing
import Traffic
import VitalSimCore

/// Every conformance area in the registry is complete: the check kinds it makes are its own, its
/// merge rule gives a sharded run the unsharded run's checks, and its report rows account for every
/// check it made. A new area that is left out of the fixture below fails here until it is in it.
@Suite struct ConformanceRegistryTests {
    let registry = ConformanceRegistry.standard
    let fixture = AreaFixture()

    @Test func everyCheckKindButTheGatesOwnIsMadeByAnArea() {
        let made = registry.areas.reduce(into: Set<CheckKind>()) { $0.formUnion($1.kinds) }
        #expect(made == Set(CheckKind.allCases).subtracting([.waiver]))
        #expect(Set(registry.areas.map(\.name)).count == registry.areas.count, "area names are unique")
    }

    @Test func everyAreaMakesChecksInTheFixtureAndStampsThem() {
        let whole = fixture.whole()
        for area in registry.areas {
            #expect(!whole.checks(of: area).isEmpty, "\(area.name) makes no check in AreaFixture: add to it")
        }
        #expect(whole.checks.allSatisfy { $0.area != nil })
        for check in whole.checks {
            let area = registry.area(of: check)
            #expect(area?.kinds.contains(check.kind) == true, "\(check.name): its area makes no \(check.kind)")
        }
    }

    /// Each area's merge rule: the checks of two shards, each judged on its own patients and
    /// merged, are the whole run's, in the whole run's order.
    @Test func everyAreasMergeRuleGivesTheUnshardedChecks() {
        let whole = fixture.whole()
        let merged = Verdict(
            merging: [fixture.shard(["1"]), fixture.shard(["2"])],
            golden: fixture.golden,
            scenario: "s"
        )
        for area in registry.areas {
            #expect(
                merged.checks(of: area).map(AreaFixture.summary) == whole.checks(of: area).map(AreaFixture.summary),
                "\(area.name)'s merge rule"
            )
        }
        #expect(merged.checks.map(\.area) == whole.checks.map(\.area), "the areas' order")
    }

    /// Each area's report row counts every check it made, its failures and their findings.
    @Test func everyAreasReportRowAccountsForItsChecks() {
        let whole = fixture.whole()
        let rows = registry.rows(of: whole)
        #expect(rows.map(\.name) == registry.areas.map(\.name))
        for (area, row) in zip(registry.areas, rows) {
            let own = whole.checks(of: area)
            #expect(row.checks == own.count, "\(area.name)")
            #expect(row.failed == own.filter { !$0.passed }.count, "\(area.name)")
            #expect(row.findings.reduce(0) { $0 + $1.count } == row.failed, "\(area.name)")
            #expect(row.line.hasPrefix(area.title + ": \(own.count) check(s)"), "\(row.line)")
        }
    }

    /// Each area locates its checks, and names the requirements they verify among its own.
    @Test func everyAreaTracesItsChecksToItsOwnRequirements() {
        let whole = fixture.whole()
        for check in whole.checks {
            let area = registry.area(of: check)
            let own = Set(area?.requirementIDs ?? [])
            let ids = check.requirements.filter { !$0.hasPrefix("rule.") }
            #expect(!check.requirements.isEmpty, "\(check.name)")
            #expect(ids.allSatisfy(own.contains), "\(check.name): \(ids) beyond \(own.sorted())")
        }
    }
}

/// A run of two patients that exercises every area: patient 1 (in the care of ann) and patient 2
/// (in the care of bo), each with readings, an expected alert, a refusal, stored readings, access
/// probes, a care-team action, notifications, an audit trail and a deletion.
struct AreaFixture {
    /// 2024-11-07T10:00:00Z.
    let start: Int64 = 1_730_973_600_000
    let minute: Int64 = 60_000

    var golden: GoldenFile {
        var golden = JudgeFixtures.golden(
            alerts: ["1", "2"].map(expectedAlert),
            validation: [GoldenFile.ExpectedValidation(reading: "1/d1/3", status: 400, field: "unit")]
        )
        golden.budgets = [GoldenFile.Budget(path: .readingToAck, limits: [(99, 5)])]
        return golden
    }

    func expectedAlert(_ patient: String) -> GoldenFile.ExpectedAlert {
        var alert = GoldenFile.ExpectedAlert(
            patientID: patient,
            rule: "hr.tachycardia",
            severity: .high,
            from: start,
            to: start + 5 * minute
        )
        alert.recipients = [GoldenFile.ExpectedRecipient(person: person(of: patient), after: 0)]
        return alert
    }

    func person(of patient: String) -> String { patient == "1" ? "ann" : "bo" }

    /// Readings 1/d1/1…4 and 2/d2/5…8, interleaved in time.
    func plan(_ patients: Set<String>) -> [SentRequest] {
        (0..<4).flatMap { slot in
            [("1", slot + 1), ("2", slot + 5)].filter { patients.contains($0.0) }.map { patient, number in
                SentRequest(
                    PlannedRequest(
                        path: "/api/v1/observations",
                        body: [],
                        readings: [("\(patient)/d\(patient)/\(number)", Int64(slot) * 1000)],
                        patientID: patient,
                        sendAt: Int64(slot) * 1000,
                        expectedRejection: nil,
                        deviceID: "d\(patient)"
                    )
                )
            }
        }
    }

    func outcome(_ request: SentRequest) -> RequestOutcome {
        request.firstReading == "1/d1/3"
            ? RequestOutcome(status: 400, field: "unit", attempts: 1) : RequestOutcome(status: 200, attempts: 1)
    }

    func observed(_ patient: String) -> ObservedAlert {
        ObservedAlert(
            alertID: "a\(patient)",
            patientID: patient,
            rule: "hr.tachycardia",
            severity: "high",
            raisedAt: start + minute,
            evidence: ["\(patient)/d\(patient)/1"]
        )
    }

    /// What the run observed of `patients`' part of the scenario.
    func observation(_ patients: Set<String>) -> RunObservation {
        let plan = plan(patients)
        let ordered = ["1", "2"].filter(patients.contains)
        var run = RunObservation(
            traffic: TrafficObservation(
                outcomes: plan.map(outcome),
                ackLatency: JudgeFixtures.histogram(
                    ordered.flatMap { Array(repeating: $0 == "2" ? 9000 : 1000, count: 4) }
                ),
                schedulingLag: JudgeFixtures.histogram()
            ),
            alerts: AlertObservation(observed: ordered.map(observed), latency: JudgeFixtures.histogram())
        )
        var sse = PushDelivery(kind: .sse)
        sse.delivered = Set(ordered.map { "a\($0)" })
        run.alerts.push = [sse]
        var stored = StoredReadBack()
        for patient in ordered {
            stored.readings[patient] = expectations(patients).byPatient[patient]?.dropLast(patient == "2" ? 1 : 0)
                .map { StoredReading(id: $0.id, time: $0.time, values: $0.values) }
        }
        run.areas[StoredReadBack.self] = stored
        run.areas[AccessMatrixObservation.self] = AccessMatrixObservation(probes: ordered.flatMap(probes))
        // The timeline's actions in time order: bo's (patient 2) before ann's.
        run.areas[CareActionsObservation.self] = CareActionsObservation(
            outcomes: ["2", "1"].filter(patients.contains).map(action)
        )
        run.areas[InboxesObservation.self] = InboxesObservation(
            notifications: ordered.map {
                ObservedNotification(recipient: person(of: $0), alertID: "a\($0)", at: start + minute)
            },
            readers: ordered.map(person(of:))
        )
        run.areas[AuditReadBack.self] = AuditReadBack(
            entries: [AuditEntry(agent: "ann", patient: "1", change: false, at: start)].filter { _ in
                patients.contains("1")
            },
            people: ordered.map { AuditPerson(person: person(of: $0), role: .caregiver, inCare: [$0]) }
        )
        run.areas[DeletionObservation.self] = DeletionObservation(
            reads: ordered.map { patient in
                var read = DeletedPatientRead(patient: patient)
                read.readingsStatus = patient == "2" ? 200 : 404
                read.readingsListed = patient == "2" ? 3 : 0
                return read
            }
        )
        return run
    }

    /// Each person's own patient's readings (granted), and the other patient's (ann's refused, bo's
    /// granted wrongly).
    func probes(_ patient: String) -> [AccessProbe] {
        let other = patient == "1" ? "2" : "1"
        var own = AccessProbe(
            person: person(of: patient),
            role: .caregiver,
            operation: .readReadings,
            patient: patient,
            inCare: true,
            mustGrant: true
        )
        own.status = 200
        var foreign = AccessProbe(
            person: person(of: patient),
            role: .caregiver,
            operation: .readReadings,
            patient: other,
            inCare: false,
            mustGrant: false
        )
        foreign.status = patient == "1" ? 403 : 200
        foreign.leaked = patient == "1" ? [] : ["reading 1/d1/1"]
        return [own, foreign]
    }

    func action(_ patient: String) -> CareActionOutcome {
        CareActionOutcome(
            action: CareTeamAction(
                at: patient == "1" ? 90_000 : 30_000,
                person: person(of: patient),
                patient: patient,
                action: .acknowledge,
                rule: "hr.tachycardia"
            ),
            alert: observed(patient),
            status: patient == "1" ? 200 : 409,
            problem: nil,
            accepted: patient == "1"
        )
    }

    func expectations(_ patients: Set<String>) -> StoredDataExpectations {
        var byPatient: [String: [StoredDataExpectations.Entry]] = [:]
        for request in plan(patients) where outcome(request).status == 200 {
            let id = request.firstReading ?? ""
            byPatient[request.patientID, default: []].append(
                StoredDataExpectations.Entry(
                    id: id,
                    time: start + request.sendAt,
                    values: [.heartRate: 70],
                    kind: .heartRate
                )
            )
        }
        return StoredDataExpectations(byPatient: byPatient)
    }

    func evidence(_ patients: Set<String>) -> EvidenceCatalog {
        var readings: [String: EvidenceCatalog.Entry] = [:]
        for request in plan(patients) {
            readings[request.firstReading ?? ""] = EvidenceCatalog.Entry(
                patientID: request.patientID,
                signals: [.heartRate],
                time: start + request.sendAt,
                status: outcome(request).status
            )
        }
        return EvidenceCatalog(readings: readings)
    }

    func verdict(_ patients: Set<String>, partial: Bool) -> Verdict {
        Verdict(
            scenario: "s",
            golden: partial ? golden.restricted(to: patients) : golden,
            plan: plan(patients),
            digest: patients.contains("1") ? "sha256:changed" : nil,
            result: observation(patients),
            evidence: evidence(patients),
            stored: expectations(patients),
            partial: partial
        )
    }

    func whole() -> Verdict { verdict(["1", "2"], partial: false) }

    func shard(_ patients: Set<String>) -> Verdict { verdict(patients, partial: true) }

    static func summary(_ check: Check) -> String {
        "\(check.name) | \(check.finding?.rawValue ?? "pass") | \(check.skipped) | \(check.detail)"
    }
}
