import Foundation
import Histogram
import RunRecord
import Traffic
import VitalSimCore

extension Verdict {
    /// Compares a run with its golden file: traffic digest, alerts, push channels, validation,
    /// delivery and latency budgets, one ``Check`` per expectation; with `evidence`, the readings each
    /// alert cites; with `stored` and what the run read back, the SUT's stored data. A `partial`
    /// verdict (one shard's patients) skips a budget it has no samples for: the merge judges it; a
    /// `nil` digest is left to another shard (the one running the scenario's first patient).
    package static func judge(
        scenario: String,
        golden: GoldenFile,
        plan: [SentRequest],
        digest: String?,
        result: RunObservation,
        evidence: EvidenceCatalog? = nil,
        stored: StoredDataExpectations? = nil,
        partial: Bool = false
    ) -> Verdict {
        var verdict = Verdict(scenario: scenario, checks: [])
        verdict.alertTraces = alertTraces(
            result.alerts.observed,
            plan: plan,
            trace: result.traffic.trace,
            found: result.alerts.requests
        )
        if let digest, digest != golden.trafficDigest {
            let detail =
                "the scenario now produces different traffic (\(digest)) than when the golden file was recorded "
                + "(\(golden.trafficDigest)); re-record and review"
            verdict.checks.append(
                Check(kind: .traffic, name: "traffic digest", rule: nil, finding: .trafficChanged, detail: detail)
            )
        }
        verdict.checks += alertChecks(golden.alerts, result.alerts.observed, waited: result.alerts.wait)
        if let evidence { verdict.checks += evidenceChecks(result.alerts, catalog: evidence) }
        verdict.merging.pushed = result.alerts.push.map {
            PushTally(channel: $0.kind, delivered: $0.delivered.sorted(), repeats: $0.repeats)
        }
        verdict.checks += pushChecks(listed: Set(result.alerts.observed.map(\.alertID)), verdict.merging.pushed)
        verdict.checks += validationChecks(golden, plan: plan, result: result, counting: &verdict)
        if let stored, let readBack = result.areas[StoredReadBack.self] {
            verdict.checks += storedDataChecks(stored, readBack)
        }
        verdict.checks += accessChecks(result.areas[AccessMatrixObservation.self]?.probes ?? [])
        verdict.checks += recipientChecks(golden, result)
        for outcome in result.areas[CareActionsObservation.self]?.outcomes ?? [] {
            verdict.merging.careActionTimes[careActionCheck(outcome).name] = outcome.action.at
        }
        verdict.checks += auditChecks(result)
        verdict.checks += deletionChecks(result.areas[DeletionObservation.self]?.reads ?? [])
        let measured = histograms(result)
        verdict.checks += budgetChecks(
            golden.budgets,
            histograms: measured,
            partial: partial,
            alertsMissed: verdict.checks.contains { $0.kind == .alert && $0.finding == .missed },
            network: result.traffic.network
        )
        verdict.alerts = result.alerts.observed
        verdict.expectedAlerts = golden.alerts
        for (path, h) in measured {
            verdict.latency[path] = summary(h)
            verdict.histograms[path] = buckets(h)
        }
        verdict.latency[.schedulingLag] = summary(result.traffic.schedulingLag)
        verdict.keepMergeInputs(result, measured: measured)
        let allowance = result.traffic.network?.allowance ?? 0
        let stall = harnessStall(golden.budgets, histograms: measured, hiccups: result.hiccups, allowance: allowance)
        if let stall { return Verdict(scenario: scenario, error: stall, contract: nil) }
        for i in verdict.checks.indices {
            verdict.checks[i].level = verdict.checks[i].kind.aspect.map(golden.level) ?? .shall
        }
        verdict.traceRequirements(plan: plan)
        return verdict
    }

    /// The evidence checks of the alerts a run observed, or one skipped check when the SUT's alerts
    /// cite no readings (a profile that maps no `evidence` field).
    static func evidenceChecks(_ alerts: AlertObservation, catalog: EvidenceCatalog) -> [Check] {
        if alerts.citeEvidence { return evidenceChecks(alerts.observed, catalog: catalog) }
        guard !alerts.observed.isEmpty else { return [] }
        let detail = "not checked: the SUT profile maps no `evidence` field, so its alerts cite no readings"
        return [Check(kind: .evidence, name: "alert evidence", rule: nil, finding: nil, detail: detail, skipped: true)]
    }

    /// What merging with the other parts of a sharded run needs of the run's measurements.
    mutating func keepMergeInputs(_ result: RunObservation, measured: [LatencyPath: Histogram<UInt64>]) {
        merging.histograms = measured
        merging.histograms[.schedulingLag] = result.traffic.schedulingLag
        merging.alertWait = result.alerts.wait
        if result.alerts.pollResolution > .zero {
            merging.alertPollCycle = result.alerts.pollResolution / .milliseconds(1)
        }
        merging.hiccups = result.hiccups
    }

    /// The measured latency distributions by path (the harness's own lag apart).
    static func histograms(_ result: RunObservation) -> [LatencyPath: Histogram<UInt64>] {
        var out: [LatencyPath: Histogram<UInt64>] = [
            .readingToAck: result.traffic.ackLatency, .readingToAlert: result.alerts.latency,
        ]
        for p in result.alerts.push { out[.alert(via: p.kind)] = p.latency }
        return out
    }

    /// Expectations and observed alerts are paired by ``AlertMatching`` (optimal, bounded); an
    /// expectation without a pair is missed (with the nearest unpaired alert of its rule as a hint),
    /// and each alert without a pair is a check of its own: a duplicate when it falls within reach of
    /// a paired expectation of its rule and patient, spurious otherwise.
    /// - Parameter waited: how long the run waited for expectations still missing, for their findings.
    package static func alertChecks(
        _ expected: [GoldenFile.ExpectedAlert],
        _ all: [ObservedAlert],
        waited: String? = nil
    ) -> [Check] {
        // An alert whose names the profile cannot map is judged on its own: it pairs with nothing.
        // An alert whose only unmapped name is its severity pairs as usual (see alertCheck).
        let observed = all.filter { $0.unmapped == nil || $0.onlySeverityUnmapped }
        let pairing = AlertMatching.match(expected, observed)
        let paired = Set(pairing.compactMap { $0 })
        let unpaired = observed.indices.filter { !paired.contains($0) }.map { observed[$0] }
        var checks: [Check] = []
        var occurrences: [String: Int] = [:]
        for (i, e) in expected.enumerated() {
            var name = "alert \(e.rule) patient \(e.patientID)"
            occurrences[name, default: 0] += 1
            if let n = occurrences[name], n > 1 { name += " #\(n)" }
            guard let j = pairing[i] else {
                let detail = missedDetail(e, unpaired) + unmappedHint(e, all) + (waited.map { "; \($0)" } ?? "")
                checks.append(Check(kind: .alert, name: name, rule: e.rule, finding: .missed, detail: detail))
                continue
            }
            let inWindow = AlertMatching.distance(observed[j].raisedAt, from: e.from, to: e.to) == 0
            checks.append(alertCheck(e, observed[j], name: name, inWindow: inWindow))
        }
        let pairedExpectations = expected.indices.filter { pairing[$0] != nil }.map { expected[$0] }
        checks += unexpectedAlertChecks(
            unpaired,
            pairedExpectations: pairedExpectations,
            unmapped: all.filter { $0.unmapped != nil && !$0.onlySeverityUnmapped }
        )
        return checks
    }

    /// For a missed expectation: the unmapped alerts of its patient within reach of its window, which
    /// may be it under a name the SUT profile does not map.
    static func unmappedHint(_ goldenFile: GoldenFile.ExpectedAlert, _ all: [ObservedAlert]) -> String {
        let near = all.filter {
            $0.unmapped != nil && $0.patientID == goldenFile.patientID
                && AlertMatching.distance($0.raisedAt, from: goldenFile.from, to: goldenFile.to)
                    <= AlertMatching.pairingBound
        }
        guard let first = near.first else { return "" }
        let names = Array(Set(near.map { "'\($0.rule)'" })).sorted().joined(separator: ", ")
        return
            "; the SUT raised \(near.count) alert(s) for this patient near the window under name(s) the profile does not map (\(names), first: alert \(first.alertID)): map them in rules:/severities: to judge them"
    }

    /// Why an expectation is missed, naming the nearest unpaired alert of its rule and patient.
    static func missedDetail(_ goldenFile: GoldenFile.ExpectedAlert, _ unpaired: [ObservedAlert]) -> String {
        let detail =
            "no \(goldenFile.rule) alert for patient \(goldenFile.patientID); expected raisedAt in \(iso(goldenFile.from))…\(iso(goldenFile.to))"
        let sameRule = unpaired.filter { $0.patientID == goldenFile.patientID && $0.rule == goldenFile.rule }
        guard
            let nearest = sameRule.min(by: {
                AlertMatching.distance($0.raisedAt, from: goldenFile.from, to: goldenFile.to)
                    < AlertMatching.distance($1.raisedAt, from: goldenFile.from, to: goldenFile.to)
            })
        else { return detail }
        let gap = VirtualDuration(
            milliseconds: AlertMatching.distance(nearest.raisedAt, from: goldenFile.from, to: goldenFile.to)
        )
        let side = nearest.raisedAt < goldenFile.from ? "before" : "after"
        let bound = VirtualDuration(milliseconds: AlertMatching.pairingBound)
        return detail
            + "; the nearest unpaired one (alert \(nearest.alertID), \(iso(nearest.raisedAt))) is \(gap) \(side) the window, beyond the \(bound) pairing bound"
    }

    /// The alerts no expectation accounts for, one check per group so that a flapping rule is one
    /// failure, named without times (``UnexpectedAlertGroups``); "no other alerts" passes when there
    /// is none.
    static func unexpectedAlertChecks(
        _ unpaired: [ObservedAlert],
        pairedExpectations: [GoldenFile.ExpectedAlert],
        unmapped: [ObservedAlert] = []
    ) -> [Check] {
        var groups = UnexpectedAlertGroups(pairedExpectations: pairedExpectations)
        for alert in unmapped.sorted(by: UnexpectedAlertGroups.byTime) { groups.addUnmapped(alert) }
        for alert in unpaired.sorted(by: UnexpectedAlertGroups.byTime) { groups.addUnpaired(alert) }
        guard !groups.groups.isEmpty else {
            return [
                Check(
                    kind: .noOtherAlerts,
                    name: "no other alerts",
                    rule: nil,
                    finding: nil,
                    detail: "only the expected alerts were raised"
                )
            ]
        }
        return groups.checks
    }

    /// The check of one expectation against the alert matched to it.
    static func alertCheck(
        _ goldenFile: GoldenFile.ExpectedAlert,
        _ observedAlert: ObservedAlert,
        name: String,
        inWindow: Bool
    ) -> Check {
        if !inWindow {
            let detail =
                "raisedAt \(iso(observedAlert.raisedAt)) is outside the expected window \(iso(goldenFile.from))…\(iso(goldenFile.to))"
            return Check(
                kind: .alert,
                name: name,
                rule: goldenFile.rule,
                finding: observedAlert.raisedAt > goldenFile.to ? .late : .early,
                detail: detail
            )
        }
        if let raw = observedAlert.unmappedSeverity {
            let detail =
                "raised at \(iso(observedAlert.raisedAt)) (alert \(observedAlert.alertID)) with severity '\(raw)', which the SUT profile's severities: does not map (expected \(goldenFile.severity.rawValue)): map it to judge the severity"
            return Check(kind: .alert, name: name, rule: goldenFile.rule, finding: .unmappedSeverity, detail: detail)
        }
        if observedAlert.severity != goldenFile.severity.rawValue {
            let detail =
                "severity \(observedAlert.severity), expected \(goldenFile.severity.rawValue) (alert \(observedAlert.alertID))"
            return Check(kind: .alert, name: name, rule: goldenFile.rule, finding: .wrongSeverity, detail: detail)
        }
        return Check(
            kind: .alert,
            name: name,
            rule: goldenFile.rule,
            finding: nil,
            detail: "raised at \(iso(observedAlert.raisedAt)) (alert \(observedAlert.alertID))"
        )
    }

    /// Push channels: every alert the API lists (`listed`) arrived on each observed channel, and nothing else.
    package static func pushChecks(listed: Set<String>, _ tallies: [PushTally]) -> [Check] {
        tallies.map { p in
            let channel = p.channel.rawValue
            let got = Set(p.delivered)
            let missing = listed.subtracting(got).sorted()
            let extra = got.subtracting(listed).sorted()
            var detail = "\(got.count) alert(s) delivered via \(channel)"
            if p.repeats > 0 { detail += ", \(p.repeats) repeated delivery(ies) (at-least-once)" }
            if !missing.isEmpty {
                detail =
                    "\(missing.count) of \(listed.count) alert(s) never arrived via \(channel), first: \(missing[0])"
            } else if !extra.isEmpty {
                detail =
                    "\(extra.count) alert(s) arrived via \(channel) that the alert API does not list, first: \(extra[0])"
            }
            let finding: Finding? = !missing.isEmpty ? .missed : !extra.isEmpty ? .spurious : nil
            return Check(
                kind: .delivery,
                name: "alerts delivered via \(channel)",
                rule: nil,
                finding: finding,
                detail: detail
            )
        }
    }

    /// Expected rejections, no other rejection, every reading answered; counts the readings into `v`.
    static func validationChecks(
        _ golden: GoldenFile,
        plan: [SentRequest],
        result: RunObservation,
        counting v: inout Verdict
    ) -> [Check] {
        var checks: [Check] = []
        var expected: [String: GoldenFile.ExpectedValidation] = [:]
        for e in golden.validation { expected[e.reading] = e }
        var seen: Set<String> = []
        var refusedValid: [(reading: String, status: Int, field: String)] = []
        for (i, request) in plan.enumerated() {
            let o = result.traffic.outcomes[i]
            let first = request.firstReading ?? ""
            v.count(o, readings: request.readingCount)
            if expected[first] != nil || (400..<500).contains(o.status ?? 0) {
                v.merging.validationTimes[first] = request.sendAt
            }
            if let e = expected[first], !seen.contains(first) {
                seen.insert(first)
                if request.topic != nil, !result.traffic.refusesOverMQTT {
                    let detail = "not judged: the SUT publishes no refusals of MQTT readings (mqtt.rejections: none)"
                    checks.append(validation("rejects \(e.reading)", nil, detail, skipped: true))
                    continue
                }
                checks += rejectionChecks(e, o, sent: request.expectedRejection)
            } else if let s = o.status, s >= 400, s < 500, expected[first] == nil {
                refusedValid.append((first, s, o.field ?? ""))
            }
        }
        checks += acceptanceChecks(refusedValid)
        // Readings carried over a BLE link: a gateway answers no status, so their rejections are judged
        // only through the alerts (a corrupt value that the SUT ingested may raise a spurious one).
        for e in golden.validation where !seen.contains(e.reading) && result.traffic.ble?.carries(e.reading) != true {
            if let kind = result.traffic.withheld.corrupt[e.reading] {
                let detail = "not sent: the SUT's conformance statement claims no \(kind) readings"
                checks.append(validation("rejects \(e.reading)", nil, detail, skipped: true))
                continue
            }
            let detail = "the scenario no longer sends reading \(e.reading)"
            checks.append(validation("rejects \(e.reading)", .validationMismatch, detail))
        }
        if result.traffic.withheld.count > 0 {
            let kinds = Set(result.traffic.withheld.corrupt.values).sorted()
            let detail =
                "\(result.traffic.withheld.count) reading(s) not sent: the SUT's conformance statement does not claim their kind"
                + (kinds.isEmpty ? "" : " (corrupted ones among them: \(kinds.joined(separator: ", ")))")
            checks.append(
                Check(
                    kind: .delivery,
                    name: "readings of unclaimed kinds",
                    rule: nil,
                    finding: nil,
                    detail: detail,
                    skipped: true
                )
            )
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
    static func acceptanceChecks(_ refused: [(reading: String, status: Int, field: String)]) -> [Check] {
        var groups: [(device: String, refusals: [(reading: String, status: Int, field: String)])] = []
        for refusal in refused {
            let device = refusal.reading.lastIndex(of: "/").map { String(refusal.reading[..<$0]) } ?? refusal.reading
            if let i = groups.firstIndex(where: { $0.device == device }) {
                groups[i].refusals.append(refusal)
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
    static func validation(_ name: String, _ finding: Finding?, _ detail: String, skipped: Bool = false) -> Check {
        Check(kind: .validation, name: name, rule: nil, finding: finding, detail: detail, skipped: skipped)
    }

    /// One expected rejection against the request's final answer: the status (`rejects R`) and, as a
    /// check of its own (`rejects R naming its field`, a SHOULD by default), the field the refusal
    /// names. A golden field of `*` accepts any field, so only the status is judged.
    static func rejectionChecks(
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
    package static func deliveryCheck(_ lost: LostTally, verdict v: Verdict) -> Check {
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
        let detail = "\(lost.count) request(s) without a final answer, first: \(lost.first ?? "?")"
        return Check(kind: .delivery, name: name, rule: nil, finding: .lost, detail: detail)
    }

    /// Every MQTT reading the broker acknowledged reached the SUT: confirmed or rejected by it where it
    /// publishes confirmations, and none dropped by the broker where its counters can be read.
    package static func mqttDeliveryCheck(_ mqttDelivery: MQTTDelivery) -> Check {
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
    package static func bleDeliveryCheck(_ ble: BLELinkSummary, expectedRejectionsOverBLE overBLE: Int) -> Check {
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

    /// Latency budgets; a budget with no samples fails, unless it is a reading → alert path and
    /// `alertsMissed` (expected alerts already reported `missed`): nothing came to be measured, and
    /// that is the missed alerts' failure, not a second one. Under a `network`, each budget allows
    /// its allowance more (the check keeps its name, so waivers and baselines still match it).
    package static func budgetChecks(
        _ budgets: [GoldenFile.Budget],
        histograms: [LatencyPath: Histogram<UInt64>],
        partial: Bool = false,
        alertsMissed: Bool = false,
        network: (summary: String, allowance: Double)? = nil
    ) -> [Check] {
        var checks: [Check] = []
        for b in budgets {
            for (p, limit) in b.limits {
                let name = "budget \(b.path.rawValue) \(GoldenFile.percentileName(p)) ≤ \(GoldenFile.ms(limit)) ms"
                guard let h = histograms[b.path], h.totalCount > 0 else {
                    if partial {
                        let detail = "no samples among this shard's patients: vitalsim merge judges it over every shard"
                        checks.append(
                            Check(kind: .budget, name: name, rule: nil, finding: nil, detail: detail, skipped: true)
                        )
                        continue
                    }
                    if alertsMissed, b.path != .readingToAck {
                        let detail =
                            "no samples for \(b.path.rawValue): no alert came to be measured, and the expected ones are reported missed above"
                        checks.append(
                            Check(kind: .budget, name: name, rule: nil, finding: nil, detail: detail, skipped: true)
                        )
                        continue
                    }
                    let hint =
                        b.path.channel.map { " (observe the \($0.rawValue) push channel to measure it)" } ?? ""
                    let detail = "no samples for \(b.path.rawValue): a budget with nothing measured cannot pass" + hint
                    checks.append(Check(kind: .budget, name: name, rule: nil, finding: .budgetExceeded, detail: detail))
                    continue
                }
                let value = milliseconds(h, at: p)
                var detail = String(format: "%.2f ms over %d samples", value, h.totalCount)
                if let network {
                    detail += "; \(Int((limit + network.allowance).rounded())) ms allowed under \(network.summary)"
                }
                checks.append(
                    Check(
                        kind: .budget,
                        name: name,
                        rule: nil,
                        finding: value <= limit + (network?.allowance ?? 0) ? nil : .budgetExceeded,
                        detail: detail
                    )
                )
            }
        }
        return checks
    }

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
