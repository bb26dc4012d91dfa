import Foundation
import RunRecord
import Traffic
import Transports
import VitalSimCore

/// What a FHIR server says it supports (its `CapabilityStatement`, `GET [base]/metadata`) set
/// against what a profile will ask of it: the Bundle interaction of each Bundle route, create (and
/// conditional create) of Observation, update of a resource the lifecycle PUTs, and search by each
/// parameter the read-back URLs use. What the server does not claim is a warning of `vitalsim
/// doctor`, never a failure: a server may do more than it states.
package struct CapabilityReview {
    /// One thing the profile uses: the resource type (nil: the whole server) and what of it.
    package struct Use: Hashable {
        var resource: String?
        var interaction: String?
        var searchParameter: String?
        var conditionalCreate = false

        /// How a warning names it.
        package var summary: String {
            let subject = resource ?? "the server"
            if let searchParameter { return "search of \(subject) by \(searchParameter)" }
            if conditionalCreate { return "conditional create of \(subject)" }
            return "\(interaction ?? "?") of \(subject)"
        }
    }

    let profile: SUTProfile

    package init(profile: SUTProfile) { self.profile = profile }

    /// The server's FHIR base (its first FHIR route's path; a single Observation's route less its
    /// last segment), or nil when the profile speaks no FHIR over HTTP.
    var fhirBase: String? {
        guard let route = profile.ingestion.routes.routes.first(where: { $0.format.isFHIR && !$0.overMQTT }) else {
            return nil
        }
        guard case .fhirObservation = route.format, let slash = route.path.lastIndex(of: "/") else {
            return route.path
        }
        return String(route.path[..<slash])
    }

    /// Everything the profile will ask of the server.
    package var uses: [Use] {
        var out: [Use] = []
        for route in profile.ingestion.routes.routes where route.format.isFHIR && !route.overMQTT {
            if case .fhirBundle(let type) = route.format { out.append(Use(interaction: type)) }
            out.append(Use(resource: "Observation", interaction: "create"))
            if route.writes == .conditionalCreate { out.append(Use(resource: "Observation", conditionalCreate: true)) }
        }
        for step in profile.lifecycle.enrol + profile.lifecycle.reset {
            guard case let .request(method, path, _, _) = step.action, let resource = resourceType(in: path) else {
                continue
            }
            let interaction = ["PUT": "update", "POST": "create", "DELETE": "delete", "PATCH": "patch"][method]
            out.append(Use(resource: resource, interaction: interaction))
        }
        if let source = profile.storedReadings {
            for url in [source.url, source.byPeriod, source.byKind].compactMap({ $0 }) {
                guard let resource = resourceType(in: url) else { continue }
                out.append(Use(resource: resource, interaction: "search-type"))
                for name in searchParameters(in: url) {
                    out.append(Use(resource: resource, searchParameter: name))
                }
            }
        }
        var seen: Set<Use> = []
        return out.filter { seen.insert($0).inserted }
    }

    /// The resource type a URL of the FHIR base names (`/fhir/Patient/{patient}` → `Patient`).
    func resourceType(in url: String) -> String? {
        guard let base = fhirBase else { return nil }
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        guard path.hasPrefix(base + "/") else { return nil }
        let first = path.dropFirst(base.count + 1).split(separator: "/").first.map(String.init) ?? ""
        return first.first?.isUppercase == true ? first : nil
    }

    /// The search parameters of a URL's query, without modifiers; those starting with `_` (paging,
    /// `_count`) are the specification's own and left out.
    func searchParameters(in url: String) -> [String] {
        guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return query.split(separator: "&").compactMap { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let bare = name.split(separator: ":").first.map(String.init) ?? name
            return bare.isEmpty || bare.hasPrefix("_") ? nil : bare
        }
    }

    /// The uses `statement` (a parsed CapabilityStatement) does not claim.
    package func unclaimed(by statement: [String: Any]) -> [Use] {
        let rest = (statement["rest"] as? [[String: Any]])?.first { $0["mode"] as? String != "client" } ?? [:]
        let system = Set((rest["interaction"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
        var resources: [String: [String: Any]] = [:]
        for resource in rest["resource"] as? [[String: Any]] ?? [] {
            if let type = resource["type"] as? String { resources[type] = resource }
        }
        return uses.filter { use in
            guard let type = use.resource else { return !system.contains(use.interaction ?? "") }
            guard let resource = resources[type] else { return true }
            if use.conditionalCreate { return resource["conditionalCreate"] as? Bool != true }
            if let name = use.searchParameter {
                return !(resource["searchParam"] as? [[String: Any]] ?? []).contains { $0["name"] as? String == name }
            }
            let claimed = (resource["interaction"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            return !claimed.contains(use.interaction ?? "")
        }
    }

    /// The doctor's check: nil when the profile speaks no FHIR; a warning naming what the server's
    /// CapabilityStatement does not claim, or that there is none to read.
    func check(_ client: any HTTPExchange, _ auth: RequestAuth, base: String) async -> Doctor.Check? {
        guard let fhirBase else { return nil }
        let name = "FHIR CapabilityStatement"
        let url = SUTProfile.resolve(fhirBase + "/metadata", base: base)
        let answer = await auth.readerGet(client, url, role: .readBack)
        guard case .success(let reply) = answer, reply.status == 200,
            let statement = try? SUTJSON.document(reply.body) as? [String: Any],
            statement["resourceType"] as? String == "CapabilityStatement"
        else {
            let why: String
            switch answer {
            case .failure(let problem): why = problem.text
            case .success(let reply): why = "GET \(url) answered \(reply.status) without a CapabilityStatement"
            }
            return Doctor.Check(
                name: name,
                passed: true,
                detail: why + ": what the server supports is not checked",
                warning: true
            )
        }
        let missing = unclaimed(by: statement)
        guard !missing.isEmpty else {
            let detail = "GET \(url) claims all \(uses.count) interaction(s) and search parameter(s) the profile uses"
            return Doctor.Check(name: name, passed: true, detail: detail)
        }
        let detail =
            "GET \(url) does not claim \(missing.map(\.summary).joined(separator: ", ")): the profile uses "
            + (missing.count == 1 ? "it" : "them") + "; a run may be refused or read back less"
        return Doctor.Check(name: name, passed: true, detail: detail, warning: true)
    }
}
