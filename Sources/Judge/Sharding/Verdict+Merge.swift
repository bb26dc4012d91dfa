import Foundation
import Histogram
import RunRecord

extension Verdict {
    /// The parts' SUT contracts as one, nil when none has one. Each shard left out the alerts of
    /// patients outside its own part, which are other shards' own when a shared alert source lists
    /// every patient's (ten shards reading one event stream each left out the other nine shards'
    /// alerts): outside the merged run are only the alerts no part read as its own, each counted
    /// once. Parts that did not keep the ids are summed as before.
    package static func mergedContract(_ parts: [Verdict]) -> SUTContract? {
        let contracts = parts.compactMap(\.contract)
        guard !contracts.isEmpty else { return nil }
        var merged = SUTContract.merged(contracts)
        let kept = contracts.compactMap(\.outsideAlertIDs)
        if kept.count == contracts.count {
            let own = Set(parts.flatMap { $0.alerts.map(\.alertID) })
            let outside = Set(kept.joined()).subtracting(own).sorted()
            merged.outsideRun = outside.count
            merged.outsideAlertIDs = outside
        }
        return merged
    }

    /// The verdict of a whole scenario from the verdicts of its sharded parts, each judged against
    /// the golden file restricted to its own patients: the checks that count over every patient are
    /// judged again over the parts' tallies (alerts, push channels, delivery, MQTT, BLE, budgets on
    /// the merged histograms), the per-patient and per-reading ones are gathered in the unsharded
    /// run's order. A part that could not be judged makes the whole an error.
    package static func merge(_ parts: [Verdict], golden: GoldenFile, scenario: String) -> Verdict {
        let contract = mergedContract(parts)
        if let failed = parts.first(where: { $0.error != nil }) {
            return Verdict(
                scenario: scenario,
                error: failed.error ?? "",
                contract: contract
            )
        }
        var v = Verdict(scenario: scenario, checks: [])
        v.merging = mergedInputs(parts)
        let alerts = parts.flatMap(\.alerts)
        // The digest is the whole scenario's, computed by the shard running its first patient only.
        v.checks += parts.flatMap { $0.checks.filter { $0.kind == .traffic } }
        v.checks += alertChecks(golden.alerts, alerts, waited: v.merging.alertWait)
        v.checks += mergedEvidenceChecks(parts, alerts: alerts.count)
        v.checks += pushChecks(listed: Set(alerts.map(\.alertID)), v.merging.pushed)
        let times = v.merging.validationTimes
        let validation = parts.flatMap { $0.checks.filter { $0.kind == .validation || $0.kind == .refusedField } }
        v.checks += stableSorted(validation) { times[reading(named: $0.name)] ?? .max }
        for p in parts {
            (v.acknowledged, v.rejected, v.failed) = (
                v.acknowledged + p.acknowledged, v.rejected + p.rejected, v.failed + p.failed
            )
            v.httpVersions.merge(p.httpVersions, uniquingKeysWith: +)
        }
        v.checks.append(deliveryCheck(v.merging.lost, verdict: v))
        if let mqtt = v.merging.mqtt { v.checks.append(mqttDeliveryCheck(mqtt)) }
        if let ble = v.merging.ble {
            v.checks.append(bleDeliveryCheck(ble, expectedRejectionsOverBLE: v.merging.rejectionsOverBLE))
        }
        let stored = parts.flatMap { $0.checks.filter { $0.kind == .storedData } }
        v.checks += stableSorted(stored) { patient(named: $0.name) }
        // In the unsharded order: the access matrix, each person's audit trail, then each deleted
        // patient in patient order.
        let deletion = { (c: Check) in c.kind == .access && c.name.hasSuffix(" readable after deletion") }
        v.checks += parts.flatMap { $0.checks.filter { $0.kind == .access && !deletion($0) } }
        v.checks += mergedRecipientChecks(parts, golden: golden, actionTimes: v.merging.careActionTimes)
        v.checks += mergedAuditChecks(parts)
        v.checks += stableSorted(parts.flatMap { $0.checks.filter(deletion) }) { patient(named: $0.name) }
        var measured = v.merging.histograms
        measured[.schedulingLag] = nil
        v.checks += budgetChecks(
            golden.budgets,
            histograms: measured,
            alertsMissed: v.checks.contains { $0.kind == .alert && $0.finding == .missed }
        )
        for (path, h) in measured {
            v.latency[path] = summary(h)
            v.histograms[path] = buckets(h)
        }
        if let lag = v.merging.histograms[.schedulingLag] { v.latency[.schedulingLag] = summary(lag) }
        if let stall = harnessStall(golden.budgets, histograms: measured, hiccups: v.merging.hiccups) {
            return Verdict(scenario: scenario, error: stall, contract: contract)
        }
        v.alerts = alerts
        for p in parts { v.alertTraces.merge(p.alertTraces) { a, _ in a } }
        v.expectedAlerts = golden.alerts
        v.contract = contract
        for i in v.checks.indices { v.checks[i].level = v.checks[i].kind.aspect.map(golden.level) ?? .shall }
        // The parts' reading checks keep the ids traced from their plans; the checks judged again here
        // are about no reading.
        for i in v.checks.indices where v.checks[i].requirements.isEmpty {
            v.checks[i].requirements = RequirementTrace.ids(of: v.checks[i], kinds: { _ in [] })
        }
        return v
    }

    /// The parts' merge inputs added up: histograms merged, tallies summed.
    static func mergedInputs(_ parts: [Verdict]) -> MergeInputs {
        var mergeInputs = MergeInputs()
        var pushed: [PushChannel: PushTally] = [:]
        var channels: [PushChannel] = []
        for p in parts.map(\.merging) {
            for (path, h) in p.histograms {
                if mergeInputs.histograms[path] == nil {
                    mergeInputs.histograms[path] = h
                } else {
                    mergeInputs.histograms[path]?.add(h)
                }
            }
            for t in p.pushed {
                if pushed[t.channel] == nil { channels.append(t.channel) }
                var sum = pushed[t.channel] ?? PushTally(channel: t.channel, delivered: [], repeats: 0)
                sum.delivered += t.delivered
                sum.repeats += t.repeats
                pushed[t.channel] = sum
            }
            mergeInputs.lost.add(p.lost)
            if let mqtt = p.mqtt { mergeInputs.mqtt = mergeInputs.mqtt.map { $0.adding(mqtt) } ?? mqtt }
            if let ble = p.ble { mergeInputs.ble = mergeInputs.ble.map { $0.adding(ble) } ?? ble }
            mergeInputs.rejectionsOverBLE += p.rejectionsOverBLE
            mergeInputs.alertWait = mergeInputs.alertWait ?? p.alertWait
            if let cycle = p.alertPollCycle { mergeInputs.alertPollCycle = max(mergeInputs.alertPollCycle ?? 0, cycle) }
            if let h = p.hiccups {
                if mergeInputs.hiccups == nil { mergeInputs.hiccups = h } else { mergeInputs.hiccups?.add(h) }
            }
            mergeInputs.validationTimes.merge(p.validationTimes) { a, _ in a }
            mergeInputs.careActionTimes.merge(p.careActionTimes) { a, _ in a }
        }
        mergeInputs.pushed = channels.compactMap { pushed[$0] }
        return mergeInputs
    }

    /// The parts' failing evidence checks in the order of their alerts' times; else one passing
    /// check over every alert, or a skipped one when no part could check its alerts' evidence.
    static func mergedEvidenceChecks(_ parts: [Verdict], alerts: Int) -> [Check] {
        let all = parts.flatMap { $0.checks.filter { $0.kind == .evidence } }
        let failed = all.filter { !$0.passed }
        if !failed.isEmpty { return stableSorted(failed) { $0.name.components(separatedBy: " at ").last ?? "" } }
        if all.contains(where: { !$0.skipped }) {
            let detail =
                "each of the \(alerts) alert(s) cites readings of its patient, accepted, inside its rule's window"
            return [Check(kind: .evidence, name: "alert evidence", rule: nil, finding: nil, detail: detail)]
        }
        return all.first.map { [$0] } ?? []
    }

    /// The care team's checks in the unsharded order: each action's (by its time), then the
    /// recipients of each expected alert in the golden file's order (each part judged those of its
    /// own patients); a check several parts made alike (`alert recipients`, not read) once.
    package static func mergedRecipientChecks(
        _ parts: [Verdict],
        golden: GoldenFile,
        actionTimes: [String: Int64]
    ) -> [Check] {
        let actions = parts.flatMap { $0.checks.filter { $0.kind == .careAction } }
        var merged = stableSorted(actions) { actionTimes[$0.name] ?? .max }
        let subjects = alertSubjects(golden.alerts.map { ($0.rule, $0.patientID) })
        /// The golden alert a recipients check is about (the same subject as the judge names it).
        func alertIndex(_ check: Check) -> Int {
            subjects.firstIndex { s in
                check.name == "recipients of \(s)" || check.name.hasSuffix(" of \(s)")
                    || check.name.hasPrefix("escalates \(s) to ") || check.name.contains("escalate \(s) to ")
            } ?? -1
        }
        var recipients: [Check] = []
        for check in parts.flatMap({ $0.checks.filter { $0.kind == .recipients } }) {
            if let i = recipients.firstIndex(where: { $0.name == check.name }) {
                if recipients[i].finding == nil, check.finding != nil { recipients[i] = check }
            } else {
                recipients.append(check)
            }
        }
        merged += stableSorted(recipients, by: alertIndex)
        return merged
    }

    /// The reading a validation check (`rejects R`, `accepts R`) is about.
    package static func reading(named name: String) -> String {
        let reading = name.firstIndex(of: " ").map { String(name[name.index(after: $0)...]) } ?? name
        return reading.hasSuffix(" naming its field") ? String(reading.dropLast(" naming its field".count)) : reading
    }

    /// Each person's audit check once: a person caring for patients of several parts is judged in
    /// each (on that part's patients); the whole fails where any part failed.
    package static func mergedAuditChecks(_ parts: [Verdict]) -> [Check] {
        var merged: [Check] = []
        for check in parts.flatMap({ $0.checks.filter { $0.kind == .audit } }) {
            if let i = merged.firstIndex(where: { $0.name == check.name }) {
                if merged[i].finding == nil, check.finding != nil || merged[i].skipped { merged[i] = check }
            } else {
                merged.append(check)
            }
        }
        return merged
    }

    /// The patient a stored-data check (`stored … of patient P …`) is about.
    static func patient(named name: String) -> String {
        guard let r = name.range(of: " of patient ") else { return "" }
        return String(name[r.upperBound...].prefix { $0 != " " })
    }

    /// `checks` sorted by `key`, keeping the order of checks with equal keys.
    static func stableSorted<Key: Comparable>(_ checks: [Check], by key: (Check) -> Key) -> [Check] {
        checks.enumerated().sorted { (key($0.element), $0.offset) < (key($1.element), $1.offset) }.map(\.element)
    }
}

extension MQTTDelivery {
    /// Two parts' deliveries added up (the broker's drops summed where either counted them).
    package func adding(_ mqttDelivery: MQTTDelivery) -> MQTTDelivery {
        var m = self
        m.acknowledged += mqttDelivery.acknowledged
        m.confirmed += mqttDelivery.confirmed
        m.rejected += mqttDelivery.rejected
        m.unconfirmed = Array((unconfirmed + mqttDelivery.unconfirmed).prefix(MQTTDelivery.namedLimit))
        m.unconfirmedCount += mqttDelivery.unconfirmedCount
        m.sutConfirms = sutConfirms || mqttDelivery.sutConfirms
        if brokerDropped != nil || mqttDelivery.brokerDropped != nil {
            m.brokerDropped = (brokerDropped ?? 0) + (mqttDelivery.brokerDropped ?? 0)
        }
        return m
    }
}

extension BLELinkSummary {
    /// Two parts' BLE links as one.
    package func adding(_ bleLinkSummary: BLELinkSummary) -> BLELinkSummary {
        var b = self
        b.devices += bleLinkSummary.devices
        b.sent += bleLinkSummary.sent
        b.notSent += bleLinkSummary.notSent
        b.disconnects += bleLinkSummary.disconnects
        b.reconnects += bleLinkSummary.reconnects
        b.storedForRACP += bleLinkSummary.storedForRACP
        return b
    }
}
