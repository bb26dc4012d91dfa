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
    /// the golden file restricted to its own patients: each conformance area's checks by its merge
    /// rule (``ConformanceArea/merged(_:golden:into:)``) in the registry's order — the checks that
    /// count over every patient judged again over the parts' tallies, the per-patient and
    /// per-reading ones gathered in the unsharded run's order. A part that could not be judged makes
    /// the whole an error.
    package init(
        merging parts: [Verdict],
        golden: GoldenFile,
        scenario: String,
        registry: ConformanceRegistry = .standard
    ) {
        let contract = Verdict.mergedContract(parts)
        if let failed = parts.first(where: { $0.error != nil }) {
            self.init(scenario: scenario, error: failed.error ?? "", contract: contract)
            return
        }
        self.init(scenario: scenario, checks: [])
        merging = Verdict.mergedInputs(parts)
        for area in registry.areas {
            var made = area.merged(parts, golden: golden, into: &self)
            for i in made.indices { made[i].area = area.name }
            checks += made
        }
        var measured = merging.histograms
        measured[.schedulingLag] = nil
        for (path, histogram) in measured {
            latency[path] = histogram.summary
            histograms[path] = histogram.buckets
        }
        if let lag = merging.histograms[.schedulingLag] { latency[.schedulingLag] = lag.summary }
        if let stall = Verdict.harnessStall(golden.budgets, histograms: measured, hiccups: merging.hiccups) {
            self = Verdict(scenario: scenario, error: stall, contract: contract)
            return
        }
        alerts = parts.flatMap(\.alerts)
        for part in parts { alertTraces.merge(part.alertTraces) { first, _ in first } }
        expectedAlerts = golden.alerts
        self.contract = contract
        setLevels(golden)
        // The parts' reading checks keep the ids traced from their plans; the checks judged again here
        // are about no reading.
        for i in checks.indices where checks[i].requirements.isEmpty {
            checks[i].requirements = registry.requirements(of: checks[i], kinds: { _ in [] })
        }
    }

    /// The parts' merge inputs added up: histograms merged, tallies summed.
    static func mergedInputs(_ parts: [Verdict]) -> MergeInputs {
        var mergeInputs = MergeInputs()
        var pushed: [PushChannel: PushTally] = [:]
        var channels: [PushChannel] = []
        for p in parts.map(\.merging) {
            for (path, hiccups) in p.histograms {
                if mergeInputs.histograms[path] == nil {
                    mergeInputs.histograms[path] = hiccups
                } else {
                    mergeInputs.histograms[path]?.add(hiccups)
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
            if let hiccups = p.hiccups {
                if mergeInputs.hiccups == nil {
                    mergeInputs.hiccups = hiccups
                } else {
                    mergeInputs.hiccups?.add(hiccups)
                }
            }
            mergeInputs.validationTimes.merge(p.validationTimes) { a, _ in a }
            mergeInputs.careActionTimes.merge(p.careActionTimes) { a, _ in a }
            if let withheld = p.withheld {
                mergeInputs.withheld = (mergeInputs.withheld ?? 0) + withheld
                mergeInputs.withheldKinds = Set((mergeInputs.withheldKinds ?? []) + (p.withheldKinds ?? [])).sorted()
            }
        }
        mergeInputs.pushed = channels.compactMap { pushed[$0] }
        return mergeInputs
    }

}

extension MQTTDelivery {
    /// Two parts' deliveries added up (the broker's drops summed where either counted them).
    package func adding(_ mqttDelivery: MQTTDelivery) -> MQTTDelivery {
        var merged = self
        merged.acknowledged += mqttDelivery.acknowledged
        merged.confirmed += mqttDelivery.confirmed
        merged.rejected += mqttDelivery.rejected
        merged.unconfirmed = Array((unconfirmed + mqttDelivery.unconfirmed).prefix(MQTTDelivery.namedLimit))
        merged.unconfirmedCount += mqttDelivery.unconfirmedCount
        merged.sutConfirms = sutConfirms || mqttDelivery.sutConfirms
        if brokerDropped != nil || mqttDelivery.brokerDropped != nil {
            merged.brokerDropped = (brokerDropped ?? 0) + (mqttDelivery.brokerDropped ?? 0)
        }
        return merged
    }
}

extension BLELinkSummary {
    /// Two parts' BLE links as one.
    package func adding(_ bleLinkSummary: BLELinkSummary) -> BLELinkSummary {
        var merged = self
        merged.devices += bleLinkSummary.devices
        merged.sent += bleLinkSummary.sent
        merged.notSent += bleLinkSummary.notSent
        merged.disconnects += bleLinkSummary.disconnects
        merged.reconnects += bleLinkSummary.reconnects
        merged.storedForRACP += bleLinkSummary.storedForRACP
        return merged
    }
}
