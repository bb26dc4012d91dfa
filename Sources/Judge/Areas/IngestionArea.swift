import Foundation
import RunRecord
import Traffic
import VitalSimCore

/// What became of the readings sent: each expected rejection refused with its status
/// (`rejects R`) naming its field (`rejects R naming its field`, a SHOULD), no valid reading refused
/// (`accepts P/D`), every request answered (`every reading acknowledged or rejected`), and the MQTT
/// and BLE legs' delivery beyond the first answer. It also counts each reading's fate into the
/// verdict.
package struct IngestionArea: ConformanceArea {
    package var name: String { "ingestion" }
    package var title: String { "ingestion and refusals" }
    package var kinds: Set<CheckKind> { [.validation, .refusedField, .delivery] }
    package var observedBy: ObservationSource { .runner }
    package var requirementIDs: [String] {
        [
            "ingest.any.accept", "ingest.any.refuse", "ingest.refuse.structure", "ingest.refuse.terminology",
            "ingest.refuse.plausibility", "ingest.refusal-names-field", "ingest.answered",
            "ingest.mqtt-confirmed", "ingest.ble-gateway", "gatt.0x2902",
        ]
            + VitalKind.allCases.flatMap { ["ingest.\($0.rawValue).accept", "ingest.\($0.rawValue).refuse"] }
    }

    package init() {}

    package func checks(of run: JudgedRun, into verdict: inout Verdict) -> [Check] {
        validationChecks(run.golden, plan: run.plan, result: run.observation, counting: &verdict)
    }

    /// The shards' refusal checks in the order of their readings' send times, the readings' fates
    /// added up, and the delivery checks judged again over the shards' tallies.
    package func merged(_ parts: [Verdict], golden: GoldenFile, into verdict: inout Verdict) -> [Check] {
        let times = verdict.merging.validationTimes
        var checks = parts.flatMap { $0.checks(of: self).filter { $0.kind == .validation || $0.kind == .refusedField } }
            .stablySorted { times[IngestionArea.reading(named: $0.name)] ?? .max }
        for part in parts {
            (verdict.acknowledged, verdict.rejected, verdict.failed) = (
                verdict.acknowledged + part.acknowledged, verdict.rejected + part.rejected, verdict.failed + part.failed
            )
            verdict.httpVersions.merge(part.httpVersions, uniquingKeysWith: +)
        }
        if (verdict.merging.withheld ?? 0) > 0 { checks.append(unclaimedKindsCheck(verdict.merging)) }
        checks.append(deliveryCheck(verdict.merging.lost, verdict: verdict))
        if let mqtt = verdict.merging.mqtt { checks.append(mqttDeliveryCheck(mqtt)) }
        if let ble = verdict.merging.ble {
            checks.append(bleDeliveryCheck(ble, expectedRejectionsOverBLE: verdict.merging.rejectionsOverBLE))
        }
        return checks
    }

    package func requirements(of check: Check, kinds: (String) -> [VitalKind]) -> [String] {
        switch check.kind {
        case .validation:
            let level = check.refusalLevel.map { ["ingest.refuse." + $0.rawValue] } ?? []
            return ingestion(check.name, kinds: kinds) + level
        case .refusedField: return ingestion(check.name, kinds: kinds) + ["ingest.refusal-names-field"]
        default:
            if check.name == "every MQTT reading reached the SUT" {
                return ["ingest.answered", "ingest.mqtt-confirmed"]
            }
            if check.name == "every BLE reading sent to a subscribed central" {
                return ["ingest.ble-gateway", "gatt.0x2902"]
            }
            return ["ingest.answered"]
        }
    }

    package func exercised(by plan: ExercisePlan) -> [Check] {
        var checks: [Check] = []
        for entry in plan.golden?.validation ?? [] {
            var refusal = plan.check(.validation, "rejects \(entry.reading)")
            refusal.refusalLevel = plan.traffic.corruptLevels[entry.reading]
            checks.append(refusal)
            if entry.field != "*" {
                checks.append(plan.check(.refusedField, "rejects \(entry.reading) naming its field"))
            }
        }
        for device in plan.traffic.validKinds.keys.sorted() {
            checks.append(plan.check(.validation, "accepts \(device)"))
        }
        checks.append(plan.check(.delivery, "every reading acknowledged or rejected"))
        if plan.traffic.overMQTT { checks.append(plan.check(.delivery, "every MQTT reading reached the SUT")) }
        return checks
    }

    package func location(of check: Check, in sources: CheckLocator) -> SourceLocation {
        guard check.kind == .validation || check.kind == .refusedField else {
            return sources.patient(mentionedIn: check.name)
        }
        let reading = IngestionArea.reading(named: check.name)
        return sources.expectedRejection(of: reading)
            ?? sources.patient(reading.split(separator: "/").first.map(String.init) ?? "")
    }

    package func reportRow(_ checks: [Check]) -> AreaRow {
        let rejections = checks.filter { $0.kind == .validation && $0.name.hasPrefix("rejects ") }
        let refused = rejections.filter { $0.passed && !$0.skipped }.count
        return AreaRow(
            self,
            checks,
            about: "\(refused) of \(rejections.count) expected rejection(s) refused as expected"
        )
    }

    /// The reading a refusal check (`rejects R`, `rejects R naming its field`) or the device an
    /// acceptance check (`accepts P/D`) is about.
    package static func reading(named name: String) -> String {
        let reading = name.firstIndex(of: " ").map { String(name[name.index(after: $0)...]) } ?? name
        return reading.hasSuffix(" naming its field") ? String(reading.dropLast(" naming its field".count)) : reading
    }

    /// `rejects P/D/N` and `accepts P/D`: the refusal or acceptance of readings of their kinds.
    func ingestion(_ name: String, kinds: (String) -> [VitalKind]) -> [String] {
        let refusal = name.hasPrefix("rejects ")
        let subject =
            name.dropFirst(refusal ? "rejects ".count : name.hasPrefix("accepts ") ? "accepts ".count : 0)
            .split(separator: " ").first.map(String.init) ?? ""
        let found = kinds(subject)
        let named = found.isEmpty ? kindNamed(in: subject).map { [$0] } ?? [] : found
        let suffix = refusal ? ".refuse" : ".accept"
        guard !named.isEmpty else { return ["ingest.any" + suffix] }
        var ids: [String] = []
        for kind in named where !ids.contains("ingest.\(kind.rawValue)\(suffix)") {
            ids.append("ingest.\(kind.rawValue)\(suffix)")
        }
        return ids
    }

    /// The kind a secondary reading's id (`P/D/daily-summary/0`) or its group (`P/D/daily-summary`,
    /// as an acceptance check names it) names, if any.
    func kindNamed(in id: String) -> VitalKind? {
        let parts = id.split(separator: "/")
        if parts.count == 3, let kind = VitalKind(rawValue: String(parts[2])) { return kind }
        guard parts.count >= 4 else { return nil }
        return VitalKind(rawValue: String(parts[parts.count - 2]))
    }

    /// Expected rejections, no other rejection, every reading answered; counts the readings into `v`.
    func validationChecks(
        _ golden: GoldenFile,
        plan: [SentRequest],
        result: RunObservation,
        counting v: inout Verdict
    ) -> [Check] {
        var checks: [Check] = []
        var expected: [String: GoldenFile.ExpectedValidation] = [:]
        for expectation in golden.validation { expected[expectation.reading] = expectation }
        var seen: Set<String> = []
        var refusedValid: [(reading: String, status: Int, field: String)] = []
        for (i, request) in plan.enumerated() {
            let outcome = result.traffic.outcomes[i]
            let first = request.firstReading ?? ""
            v.count(outcome, readings: request.readingCount)
            if expected[first] != nil || (400..<500).contains(outcome.status ?? 0) {
                v.merging.validationTimes[first] = request.sendAt
            }
            if let expectation = expected[first], !seen.contains(first) {
                seen.insert(first)
                if request.topic != nil, !result.traffic.refusesOverMQTT {
                    let detail = "not judged: the SUT publishes no refusals of MQTT readings (mqtt.rejections: none)"
                    checks.append(validation("rejects \(expectation.reading)", nil, detail, skipped: true))
                    continue
                }
                checks += rejectionChecks(expectation, outcome, sent: request.expectedRejection).map { check in
                    var check = check
                    check.refusalLevel = request.expectedRejection?.level
                    return check
                }
            } else if let status = outcome.status, status >= 400, status < 500, expected[first] == nil {
                refusedValid.append((first, status, outcome.field ?? ""))
            }
        }
        checks += acceptanceChecks(refusedValid)
        // Readings carried over a BLE link: a gateway answers no status, so their rejections are judged
        // only through the alerts (a corrupt value that the SUT ingested may raise a spurious one).
        for expectation in golden.validation
        where !seen.contains(expectation.reading) && result.traffic.ble?.carries(expectation.reading) != true {
            if let kind = result.traffic.withheld.corrupt[expectation.reading] {
                let detail = "not sent: the SUT's conformance statement claims no \(kind) readings"
                checks.append(validation("rejects \(expectation.reading)", nil, detail, skipped: true))
                continue
            }
            let detail = "the scenario no longer sends reading \(expectation.reading)"
            checks.append(validation("rejects \(expectation.reading)", .validationMismatch, detail))
        }
        if result.traffic.withheld.count > 0 {
            v.merging.withheld = result.traffic.withheld.count
            v.merging.withheldKinds = Set(result.traffic.withheld.corrupt.values).sorted()
            checks.append(unclaimedKindsCheck(v.merging))
        }
        v.merging.lost = LostTally(plan: plan, outcomes: result.traffic.outcomes)
        checks.append(deliveryCheck(v.merging.lost, verdict: v))
        v.merging.mqtt = result.traffic.mqtt
        if let mqtt = result.traffic.mqtt {
            checks.append(mqttDeliveryCheck(mqtt))
            // On the SUT's own word: a reading it never confirmed failed, whatever the broker said.
            if mqtt.sutConfirms {
                v.acknowledged -= mqtt.unconfirmedCount
                v.failed += mqtt.unconfirmedCount
            }
        }
        if let ble = result.traffic.ble {
            v.acknowledged += ble.sent
            v.failed += ble.notSent
            let overBLE = golden.validation.filter { ble.carries($0.reading) }.count
            (v.merging.ble, v.merging.rejectionsOverBLE) = (ble, overBLE)
            checks.append(bleDeliveryCheck(ble, expectedRejectionsOverBLE: overBLE))
        }
        return checks
    }
    /// Valid requests the SUT refused, one check per device (`accepts PATIENT/DEVICE`, its reading
    /// ids without their sequence number) so that the name holds no reading position, with how
    /// many were refused and the first and last.
    func acceptanceChecks(_ refused: [(reading: String, status: Int, field: String)]) -> [Check] {
        var groups: [(device: String, refusals: [(reading: String, status: Int, field: String)])] = []
        for refusal in refused {
            let device = refusal.reading.lastIndex(of: "/").map { String(refusal.reading[..<$0]) } ?? refusal.reading
            if let position = groups.firstIndex(where: { $0.device == device }) {
                groups[position].refusals.append(refusal)
            } else {
                groups.append((device, [refusal]))
            }
        }
        return groups.map { group in
            func said(_ r: (reading: String, status: Int, field: String)) -> String {
                "\(r.reading) with \(r.status)" + (r.field.isEmpty ? "" : " naming field '\(r.field)'")
            }
            var detail =
                "\(group.refusals.count) valid request(s) refused; first: \(said(group.refusals[0]))"
            if group.refusals.count > 1 { detail += ", last: \(said(group.refusals[group.refusals.count - 1]))" }
            return validation("accepts \(group.device)", .validationMismatch, detail)
        }
    }
    /// A check of kind `validation`.
    func validation(_ name: String, _ finding: Finding?, _ detail: String, skipped: Bool = false) -> Check {
        Check(kind: .validation, name: name, rule: nil, finding: finding, detail: detail, skipped: skipped)
    }
    /// One expected rejection against the request's final answer: the status (`rejects R`) and, as a
    /// check of its own (`rejects R naming its field`, a SHOULD by default), the field the refusal
    /// names. A golden field of `*` accepts any field, so only the status is judged.
    func rejectionChecks(
        _ goldenFile: GoldenFile.ExpectedValidation,
        _ requestOutcome: RequestOutcome,
        sent: ExpectedRejection? = nil
    ) -> [Check] {
        let name = "rejects \(goldenFile.reading)"
        let got = requestOutcome.status.map(String.init) ?? "no response"
        let statusOK = requestOutcome.status == goldenFile.status
        // The field as the golden file names it, and as the payload's format does (a FHIR element path).
        var expectedField = "'\(goldenFile.field)'"
        if let wire = sent?.wireField, wire != goldenFile.field, !wire.isEmpty {
            expectedField += " (\(wire) in the payload sent)"
        }
        let what = sent.map(\.sentDescription).flatMap { $0.isEmpty ? nil : "; sent: " + $0 } ?? ""
        let statusCheck = Check(
            kind: .validation,
            name: name,
            rule: nil,
            finding: statusOK ? nil : .validationMismatch,
            detail: statusOK
                ? "refused with \(goldenFile.status)"
                : "expected \(goldenFile.status)"
                    + (goldenFile.field == "*" ? "" : " naming field \(expectedField)") + ", got \(got)"
                    + (requestOutcome.field.map { " naming '\($0)'" } ?? "") + what
        )
        guard goldenFile.field != "*" else { return [statusCheck] }
        let fieldName = name + " naming its field"
        // A body its format has no name for the fault of (a FHIR body cut short: no element to point at).
        if let sent, sent.namesNoElement {
            let detail =
                "not judged: the payload sent has no element a refusal could name (\(sent.corruption ?? "corrupt"))"
            return [
                statusCheck,
                Check(kind: .refusedField, name: fieldName, rule: nil, finding: nil, detail: detail, skipped: true),
            ]
        }
        guard statusOK else {
            let detail = "not judged: the request was not refused with \(goldenFile.status)"
            return [
                statusCheck,
                Check(kind: .refusedField, name: fieldName, rule: nil, finding: nil, detail: detail, skipped: true),
            ]
        }
        let named = requestOutcome.field ?? ""
        let fieldOK = named == goldenFile.field
        let detail =
            fieldOK
            ? "the refusal names '\(goldenFile.field)'"
            : "the refusal names " + (named.isEmpty ? "no field" : "'\(named)'") + ", expected \(expectedField)" + what
        return [
            statusCheck,
            Check(
                kind: .refusedField,
                name: fieldName,
                rule: nil,
                finding: fieldOK ? nil : .validationMismatch,
                detail: detail
            ),
        ]
    }
    /// Every request ended with a final answer (2xx or 4xx).
    package func deliveryCheck(_ lost: LostTally, verdict v: Verdict) -> Check {
        let name = "every reading acknowledged or rejected"
        guard lost.count > 0 else {
            var detail = "\(v.acknowledged) acknowledged, \(v.rejected) rejected"
            if lost.retried > 0 {
                detail += String(
                    format: "; %d request(s) answered only after retrying (longest wait %.1f s)",
                    lost.retried,
                    lost.longestWait
                )
            }
            return Check(kind: .delivery, name: name, rule: nil, finding: nil, detail: detail)
        }
        let detail =
            "\(lost.count) request(s) the SUT never answered (no response, or 5xx after every retry), first: \(lost.first ?? "?"); whether their readings were kept is for the stored-data checks to say"
        return Check(kind: .delivery, name: name, rule: nil, finding: .unanswered, detail: detail)
    }
    /// Every MQTT reading the broker acknowledged reached the SUT: confirmed or rejected by it where it
    /// publishes confirmations, and none dropped by the broker where its counters can be read.
    package func mqttDeliveryCheck(_ mqttDelivery: MQTTDelivery) -> Check {
        var detail = "\(mqttDelivery.acknowledged) MQTT message(s) acknowledged by the broker (PUBACK)"
        if mqttDelivery.sutConfirms {
            detail +=
                "; the SUT confirmed \(mqttDelivery.confirmed) and refused \(mqttDelivery.rejected) (its confirmations and refusals topics)"
        } else {
            detail +=
                "; the SUT refused \(mqttDelivery.rejected) and published no confirmations (mqtt.confirmations), so the rest count as delivered on the broker's word"
        }
        var lost = false
        if mqttDelivery.sutConfirms, mqttDelivery.unconfirmedCount > 0 {
            lost = true
            let named =
                mqttDelivery.unconfirmed.joined(separator: ", ")
                + (mqttDelivery.unconfirmedCount > mqttDelivery.unconfirmed.count ? ", …" : "")
            detail =
                "\(mqttDelivery.unconfirmedCount) reading(s) acknowledged by the broker were never confirmed or rejected by the SUT (\(named)); "
                + detail
        }
        if let dropped = mqttDelivery.brokerDropped {
            detail += "; the broker dropped \(dropped) message(s)"
            if dropped > 0 {
                lost = true
                detail +=
                    " ($SYS/broker/publish/messages/dropped: a subscriber's queue was full, so readings it acknowledged never reached it)"
            }
        }
        let name = "every MQTT reading reached the SUT"
        return Check(kind: .delivery, name: name, rule: nil, finding: lost ? .lost : nil, detail: detail)
    }
    /// Every reading of a BLE-linked device left its device for a subscribed central.
    package func bleDeliveryCheck(_ ble: BLELinkSummary, expectedRejectionsOverBLE overBLE: Int) -> Check {
        var detail = "\(ble.sent) reading(s) of \(ble.devices.joined(separator: ", ")) left their device over BLE"
        if ble.disconnects > 0 { detail += "; \(ble.disconnects) disconnect(s), \(ble.reconnects) reconnection(s)" }
        if ble.storedForRACP > 0 { detail += "; \(ble.storedForRACP) stored record(s) offered through RACP" }
        if overBLE > 0 {
            detail +=
                "; \(overBLE) expected rejection(s) of corrupt BLE values judged by their effect on alerts only (a gateway answers no status)"
        }
        if ble.notSent > 0 {
            detail =
                "\(ble.notSent) reading(s) never left their device: no central was subscribed to their characteristic by the end; "
                + detail
        }
        let name = "every BLE reading sent to a subscribed central"
        return Check(kind: .delivery, name: name, rule: nil, finding: ble.notSent > 0 ? .lost : nil, detail: detail)
    }

    /// The readings the run did not send because the conformance statement claims no reading of
    /// their kind: a skipped check saying how many.
    func unclaimedKindsCheck(_ tallies: MergeInputs) -> Check {
        let kinds = tallies.withheldKinds ?? []
        let detail =
            "\(tallies.withheld ?? 0) reading(s) not sent: the SUT's conformance statement does not claim their kind"
            + (kinds.isEmpty ? "" : " (corrupted ones among them: \(kinds.joined(separator: ", ")))")
        return Check(
            kind: .delivery,
            name: "readings of unclaimed kinds",
            rule: nil,
            finding: nil,
            detail: detail,
            skipped: true
        )
    }
}

extension Verdict {
    /// Counts one request's readings as acknowledged, rejected or failed, and its HTTP version.
    mutating func count(_ requestOutcome: RequestOutcome, readings n: Int) {
        if !requestOutcome.httpVersion.isEmpty { httpVersions[requestOutcome.httpVersion, default: 0] += 1 }
        switch ReadingFate(status: requestOutcome.status) {
        case .failed: failed += n
        case .acknowledged: acknowledged += n
        case .rejected: rejected += n
        }
    }
}
