import Foundation
import RunRecord
import Traffic
import Transports
import VitalSimCore

extension PatientLifecycle {
    /// One Subscription of the run: the endpoint key its notifications arrive on and what it is for.
    package struct PlannedSubscription: Sendable {
        package var key: String
        package var registration: SubscriptionNotifications.Registration
    }

    /// The Subscriptions `settings` asks for `patients`: one per patient (in order) and rule entry,
    /// each with a key from `makeKey`.
    package func plannedSubscriptions(
        _ settings: FHIRSubscriptions,
        for patients: [PatientSpec],
        makeKey: () -> String
    ) -> [PlannedSubscription] {
        patients.flatMap { p in
            settings.rules.map { rule in
                PlannedSubscription(
                    key: makeKey(),
                    registration: .init(rule: rule, patient: naming.patient(p.id))
                )
            }
        }
    }

    /// Creates `subscription` at `{base}/Subscription` with its notifications sent to `endpoint`;
    /// the server's id of it (nil when its answer names none), or what went wrong.
    package func create(
        _ subscription: PlannedSubscription,
        settings: FHIRSubscriptions,
        endpoint: String
    ) async -> Result<String?, LifecycleProblem> {
        let resource = settings.resource(
            for: subscription.registration.rule,
            patient: subscription.registration.patient,
            endpoint: endpoint
        )
        let url = base + settings.fhirBase + "/Subscription"
        let what =
            "the Subscription for \(subscription.registration.rule.rule) of patient \(subscription.registration.patient)"
        switch await fhir("POST", url, body: Array(resource.serialized().utf8), role: .enrol) {
        case .failure(let problem): return .failure(LifecycleProblem("\(what): \(problem.message)"))
        case .success(let reply):
            guard (200..<300).contains(reply.status) else {
                return .failure(
                    LifecycleProblem("\(what): POST \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))")
                )
            }
            let created = try? SUTJSON.document(reply.body) as? [String: Any]
            if let status = created?["status"] as? String, status == "error" || status == "off" {
                let error = created?["error"] as? String ?? "no error given"
                return .failure(LifecycleProblem("\(what): the server set it \(status) (\(error))"))
            }
            return .success(created?["id"] as? String)
        }
    }

    /// The answer of the Backport IG's `$status` for Subscription `id` (its event count), nil when
    /// the server gives none.
    package func status(_ id: String, settings: FHIRSubscriptions) async -> [UInt8]? {
        let url = base + settings.fhirBase + "/Subscription/" + id + "/$status"
        guard case .success(let reply) = await fhir("GET", url, body: nil, role: .alerts), reply.status == 200
        else { return nil }
        return reply.body
    }

    /// The Subscription `id` as the server holds it now (its `status` and `error`).
    package func subscriptionState(_ id: String, settings: FHIRSubscriptions) async -> SubscriptionState {
        switch await fhir("GET", base + settings.fhirBase + "/Subscription/" + id, body: nil, role: .enrol) {
        case .failure(let problem): return SubscriptionState(status: nil, description: problem.message)
        case .success(let reply):
            let read = try? SUTJSON.document(reply.body) as? [String: Any]
            guard reply.status == 200, let status = read?["status"] as? String else {
                return SubscriptionState(status: nil, description: "GET Subscription/\(id) answered \(reply.status)")
            }
            let error = (read?["error"] as? String).map { " (\($0))" } ?? ""
            return SubscriptionState(status: status, description: "its status is \(status)" + error)
        }
    }

    /// Deletes the Subscription `id`; the problem when the server refused.
    package func deleteSubscription(_ id: String, settings: FHIRSubscriptions) async -> LifecycleProblem? {
        let url = base + settings.fhirBase + "/Subscription/" + id
        switch await fhir("DELETE", url, body: nil, role: .reset) {
        case .failure(let problem): return problem
        case .success(let reply) where (200..<300).contains(reply.status) || reply.status == 404 || reply.status == 410:
            return nil
        case .success(let reply):
            return LifecycleProblem("DELETE \(url) answered \(reply.status): \(RunHealth.excerpt(reply.body))")
        }
    }

    /// A FHIR request of the Subscriptions' with an administrator's credentials.
    func fhir(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        role: SUTContract.Role
    ) async -> Result<
        HTTPReply, LifecycleProblem
    > {
        let headers =
            ["Accept: application/fhir+json"]
            + (body == nil ? [] : ["Content-Type: application/fhir+json", "Prefer: return=representation"])
        return await administrative(method, url, body: body, headers: headers, role: role)
    }
}

extension PatientLifecycle {
    /// The resource at `reference` (absolute, or relative to the FHIR base), read with an
    /// administrator's credentials; nil unless the server answered 200.
    package func fetch(_ reference: String, settings: FHIRSubscriptions) async -> [UInt8]? {
        let absolute = reference.hasPrefix("http://") || reference.hasPrefix("https://")
        let url = absolute ? reference : base + settings.fhirBase + "/" + reference
        guard case .success(let reply) = await fhir("GET", url, body: nil, role: .enrol), reply.status == 200
        else { return nil }
        return reply.body
    }
}

/// A Subscription's state as the server reads it back.
package struct SubscriptionState: Sendable, Equatable {
    /// Its `status` (`requested`, `active`, `error`, `off`); nil when it could not be read.
    package var status: String?
    /// The state in words, with the server's `error` text.
    package var description: String

    /// True when the server stopped it (`error` or `off`): its notifications no longer come.
    package var stopped: Bool { status == "error" || status == "off" }
}
