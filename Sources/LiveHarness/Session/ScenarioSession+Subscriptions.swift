import Foundation
import Locking
import RunRecord
import SUTAdapter
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
            if let id { created.append(id) }
            guard settings.style == .backport else { continue }
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
        if let id { state = await lifecycle.subscriptionState(id, settings: settings) }
        throw .infrastructure(
            "\(setup.name): alerts.subscription: the Subscription for \(subscription.registration.rule.rule) of patient \(subscription.registration.patient) had no handshake within \(JSONValue.format(timeout)) s (alerts.subscription.handshake-timeout): \(state)"
        )
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
