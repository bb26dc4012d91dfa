import Foundation
import Locking
import RunRecord
import SUTAdapter
import Traffic
import VitalSimCore

extension ScenarioSession {
    /// Creates the profile's FHIR Subscriptions for `enrolled` (`alerts.source: fhir-subscription`)
    /// and, for Backport ones, waits for each handshake; returns the ids created (to delete at the
    /// reset), and throws when the server refused one or never shook hands: a misconfiguration, not a
    /// missed alert.
    func subscribe(_ enrolled: [PatientSpec], into created: inout [String]) async throws(HarnessError) {
        guard let receiver = resources.subscriptions, let settings = setup.options.target.profile.alerts.subscriptions
        else { return }
        let lifecycle = lifecycle
        receiver.fetcher.withLock { fetcher in
            fetcher = { reference in await lifecycle.fetch(reference, settings: settings) }
        }
        let planned = lifecycle.plannedSubscriptions(settings, for: enrolled, makeKey: SubscriptionReceiver.newKey)
        for subscription in planned {
            receiver.notifications.withLock { $0.register(subscription.registration, key: subscription.key) }
            let id: String?
            switch await lifecycle.create(
                subscription,
                settings: settings,
                endpoint: receiver.endpoint(subscription.key)
            ) {
            case .failure(let problem): throw .infrastructure("\(setup.name): alerts.subscription: \(problem.message)")
            case .success(let made): id = made
            }
            if let id {
                created.append(id)
                receiver.notifications.withLock { $0.created(id, key: subscription.key) }
            }
            guard settings.style == .backport else {
                // A server may take a criteria it cannot evaluate and set the Subscription `error` then.
                if let id, case let state = await lifecycle.subscriptionState(id, settings: settings), state.stopped {
                    throw .infrastructure(
                        "\(setup.name): alerts.subscription: the server stopped the Subscription for \(subscription.registration.rule.rule) of patient \(subscription.registration.patient) once created, \(state.description)"
                    )
                }
                continue
            }
            try await awaitHandshake(subscription, id: id, receiver: receiver, settings: settings)
        }
    }

    /// Waits up to `timeout` seconds for the handshake of a Backport Subscription.
    func awaitHandshake(
        _ subscription: PatientLifecycle.PlannedSubscription,
        id: String?,
        receiver: SubscriptionReceiver,
        settings: FHIRSubscriptions
    ) async throws(HarnessError) {
        let timeout = settings.handshakeTimeout
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while ContinuousClock.now < deadline {
            if receiver.notifications.withLock({ $0.handshaken(subscription.key) }) { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        var state = "the server named no id for it"
        if let id { state = await lifecycle.subscriptionState(id, settings: settings).description }
        throw .infrastructure(
            "\(setup.name): alerts.subscription: the Subscription for \(subscription.registration.rule.rule) of patient \(subscription.registration.patient) had no handshake within \(JSONValue.format(timeout)) s (alerts.subscription.handshake-timeout): \(state)"
        )
    }

    /// The run's alerts from Subscription notifications as they stand once every notification is in
    /// (``SubscriptionNotifications/settledAlerts()``): one per episode, dated by its first reading,
    /// however the server ordered its deliveries.
    func settleEpisodes(_ record: inout RunObservation) {
        guard let receiver = resources.subscriptions else { return }
        let settled = receiver.notifications.withLock { $0.settledAlerts() }
        guard !settled.isEmpty else { return }
        let naming = naming
        func settle(_ alert: ObservedAlert) -> ObservedAlert? {
            guard let entry = settled[alert.alertID] else { return alert }
            guard let wire = entry else { return nil }
            var out = alert
            out.raisedAt = wire.raisedAt
            out.evidence = wire.evidence.map(naming.scenarioReadingID)
            return out
        }
        record.alerts.observed = record.alerts.observed.compactMap(settle)
        for k in record.alerts.push.indices where record.alerts.push[k].kind == .webhook {
            record.alerts.push[k].alerts = record.alerts.push[k].alerts.compactMapValues(settle)
            record.alerts.push[k].delivered = Set(record.alerts.push[k].alerts.keys)
        }
        for (id, entry) in settled where entry == nil { record.alerts.requests[id] = nil }
    }

    /// Throws when the server stopped one of the Subscriptions created during the run (`error`,
    /// `off`: a notification it could not deliver, say): the alerts after it cannot be judged. Tells
    /// the user of Backport events the server counted (`$status`) that never arrived.
    func checkSubscriptions() async throws(HarnessError) {
        guard let settings = setup.options.target.profile.alerts.subscriptions,
            let receiver = resources.subscriptions
        else { return }
        let created = receiver.notifications.withLock { $0.created }
        if settings.style == .backport {
            for (key, id) in created {
                guard let status = await lifecycle.status(id, settings: settings) else { continue }
                receiver.notifications.withLock { $0.status(status, key: key) }
            }
        }
        for problem in receiver.notifications.withLock({ $0.problems() }) {
            setup.options.note("\(setup.name): alerts.subscription: \(problem)")
        }
        for (_, id) in created {
            let state = await lifecycle.subscriptionState(id, settings: settings)
            guard state.stopped else { continue }
            throw .infrastructure(
                "\(setup.name): alerts.subscription: the server stopped Subscription/\(id) during the run, \(state.description): the alerts it would have notified cannot be judged"
            )
        }
    }

    /// Deletes the Subscriptions `created`; the first problem, if any.
    func unsubscribe(_ created: [String]) async -> LifecycleProblem? {
        guard let settings = setup.options.target.profile.alerts.subscriptions else { return nil }
        var first: LifecycleProblem?
        for id in created {
            if let problem = await lifecycle.deleteSubscription(id, settings: settings) { first = first ?? problem }
        }
        return first
    }
}
