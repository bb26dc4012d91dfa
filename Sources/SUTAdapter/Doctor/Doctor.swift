import Foundation
import RunRecord
import Traffic
import Transports
import VitalSimCore

/// `vitalsim doctor`: whether a SUT can be tested at all, before a run blames it. Reachability and
/// TLS, the alert source (answers with a readable alert list), and for each ingestion route a
/// scenario uses one valid request accepted (its first one, so the SUT stores one real reading of
/// the scenario; a later run sends it again as a duplicate) and one invalid request (that body cut
/// in half) refused with a 4xx; with MQTT devices, the broker accepts a connection and subscription.
/// A profile's lifecycle enrols the scenario's patients before the probes and resets them after.
package enum Doctor {
    /// One item of the checklist.
    package struct Check: Sendable, Equatable {
        package var name: String
        package var passed: Bool
        package var detail: String
        /// A warning: it passes (doctor still exits 0), and is shown as one.
        package var warning = false
    }

    /// Where and how to reach the SUT.
    package struct Target: Sendable {
        package var base: String
        package var caFile: String?
        package var insecure = false
        package var headers: [String] = []
        /// Credentials, alert source and name mapping (`--sut`).
        package var profile = SUTProfile.vitalsim
        package var mqtt: (host: String, port: Int)?
        package var mqttCAFile: String?
        /// How to authenticate to the broker (the profile's `mqtt`).
        package var mqttCredentials = MQTTCredentials()
        /// The client certificate for a SUT that requires mutual TLS.
        package var clientCertificate: ClientCertificate?
        /// The run id `{run}` stands for in the profile's lifecycle ids.
        package var runID = "doctor"
        /// How HTTP requests reach the SUT: nil sends them with libcurl; a test gives an exchange that
        /// answers in memory.
        package var exchange: (any HTTPExchange)?
        /// How its messages name the settings they point at.
        package var names = SettingNames.words

        package init(base: String) { self.base = base.hasSuffix("/") ? String(base.dropLast()) : base }
    }

    /// The checklist for `scenario`'s traffic against `target`.
    package static func examine(_ scenario: Scenario, seed: UInt64?, target: Target) async -> [Check] {
        let libcurl: HTTPMultiClient?
        let client: any HTTPExchange
        if let exchange = target.exchange {
            (libcurl, client) = (nil, exchange)
        } else {
            let made = HTTPMultiClient(
                maxConnections: 2,
                caFile: target.caFile,
                insecure: target.insecure,
                clientCertificate: target.clientCertificate
            )
            (libcurl, client) = (made, made)
        }
        defer { libcurl?.close() }
        var credentials = target.profile.auth
        credentials.headers += target.headers
        let auth = RequestAuth(credentials, base: target.base, client: client)
        var checks: [Check] = []
        if let oauth = auth.oauth {
            let obtained = await oauth.accessToken()
            switch obtained {
            case .success:
                checks.append(
                    Check(
                        name: "OAuth2 token",
                        passed: true,
                        detail: "obtained from \(oauth.tokenURL) for client \(oauth.settings.clientID)"
                    )
                )
            case .failure(let problem):
                checks.append(Check(name: "OAuth2 token", passed: false, detail: problem.message))
                return checks
            }
        }
        // The alert URL's variables as a run substitutes them, for this scenario's patients.
        var expanded = target
        let naming = try? target.profile.lifecycle.naming(run: target.runID, scenario: scenario)
        expanded.profile.mapping.patientProfiles = Dictionary(
            scenario.patients.map { (naming?.patient($0.id) ?? $0.id, $0.profile.rawValue) },
            uniquingKeysWith: { first, _ in first }
        )
        expanded.profile.alerts = target.profile.alerts.expanded(
            patients: scenario.patients.map { naming?.patient($0.id) ?? $0.id },
            since: scenario.startUnixMilliseconds,
            run: target.runID
        )
        let reachable = await alertSource(client, auth, expanded, into: &checks)
        guard reachable else { return checks }
        if let capabilities = await CapabilityReview(profile: target.profile).check(client, auth, base: target.base) {
            checks.append(capabilities)
        }
        checks += await traffic(scenario, seed: seed, target: target, client: client, auth: auth)
        if scenario.sendsOverMQTT(target.profile.ingestion.routes) {
            checks.append(await broker(target))
        }
        return checks
    }

    /// The lifecycle's enrolment, one valid and one invalid request on each route the scenario's
    /// readings take, and the lifecycle's reset.
    static func traffic(
        _ scenario: Scenario,
        seed: UInt64?,
        target: Target,
        client: any HTTPExchange,
        auth: RequestAuth
    ) async -> [Check] {
        var checks: [Check] = []
        let lifecycle = target.profile.lifecycle
        let naming: WireNaming
        do throws(WireNamingError) { naming = try lifecycle.naming(run: target.runID, scenario: scenario) } catch {
            checks.append(Check(name: "lifecycle ids", passed: false, detail: error.description))
            return checks
        }
        let steps = PatientLifecycle(
            lifecycle,
            naming: naming,
            run: target.runID,
            scenario: scenario,
            base: target.base,
            client: client,
            auth: auth
        )
        let (enrolled, problem) = await steps.enrol()
        if !lifecycle.enrol.isEmpty {
            let detail =
                problem?.message ?? "\(enrolled.count) patient(s) enrolled: "
                + lifecycle.enrol.map(\.summary).joined(separator: ", ")
            checks.append(Check(name: "enrolment", passed: problem == nil, detail: detail))
        }
        if problem == nil {
            let (probes, unroutable) = probes(scenario, seed: seed, profile: target.profile, naming: naming)
            if let reason = unroutable {
                checks.append(Check(name: "ingestion routes carry every reading", passed: false, detail: reason))
            }
            var accepted: [PlannedRequest] = []
            for request in probes where request.topic == nil {
                let answered = await ingestion(client, request, auth, target, naming: naming)
                if answered.first?.passed == true, answered.first?.name.hasPrefix("accepts a valid reading") == true {
                    accepted.append(request)
                }
                checks += answered
            }
            checks += await mqttProbes(probes.filter { $0.topic != nil }, target: target)
            if let source = target.profile.storedReadings {
                checks.append(
                    await readBack(
                        source,
                        scenario,
                        naming: naming,
                        accepted: accepted,
                        client: client,
                        auth: auth,
                        base: target.base
                    )
                )
            }
        }
        if !lifecycle.reset.isEmpty {
            let failed = await steps.reset(enrolled)
            let detail =
                failed?.message ?? "\(enrolled.count) patient(s) reset: "
                + lifecycle.reset.map(\.summary).joined(separator: ", ")
            checks.append(Check(name: "reset", passed: failed == nil, detail: detail))
        }
        return checks
    }

    /// The stored readings of the scenario's patients can be read back (`stored-readings:`), and
    /// list each reading of a kind they keep that a probe just stored (`accepted`).
    static func readBack(
        _ source: StoredReadingsSource,
        _ scenario: Scenario,
        naming: WireNaming,
        accepted: [PlannedRequest],
        client: any HTTPExchange,
        auth: RequestAuth,
        base: String
    ) async -> Check {
        let name = "stored readings read back"
        let fetch = StoredReadBackFetch(client: client, base: base, source: source, auth: auth)
        let patients = scenario.patients.map { (scenario: $0.id, wire: naming.patient($0.id)) }
        switch await fetch.fetch(patients: patients, readingID: naming.scenarioReadingID) {
        case .failure(let problem):
            return Check(name: name, passed: false, detail: problem.text + " (stored-readings of the profile)")
        case .success(let stored):
            let count = stored.readings.values.map(\.count).reduce(0, +)
            let kept = source.kinds ?? Set(VitalKind.allCases)
            let held = Set(stored.readings.values.joined().compactMap(\.id))
            for request in accepted where request.kinds.contains(where: kept.contains) {
                let ids = request.readings.map { naming.scenarioReadingID($0.id) }
                // Without ids at the SUT, or from a phone bridge (the SUT names its readings itself,
                // as the stored-data expectations have it), any reading of the patient listed will do.
                let device = scenario.patients.first { $0.id == request.patientID }?.devices
                    .first { $0.id == request.deviceID }
                let listed =
                    source.fields.id == nil || device?.type == .phoneBridge
                    ? !(stored.readings[request.patientID] ?? []).isEmpty : ids.contains(where: held.contains)
                guard !listed else { continue }
                let url =
                    StoredReadingsSource.url(source.url, patient: naming.patient(request.patientID), base: base)
                    .removingPercentEncoding ?? source.url
                let detail =
                    "GET \(url) does not list \(ids.first ?? "?"), accepted just now on \(request.method) \(request.path) (\(count) stored reading(s) listed): check stored-readings.url, list and fields.id of the profile"
                return Check(name: name, passed: false, detail: detail)
            }
            let url =
                StoredReadingsSource.url(source.url, patient: "{patient}", base: base).removingPercentEncoding
                ?? source.url
            var detail = "\(count) stored reading(s) of \(stored.readings.count) patient(s) read from \(url)"
            if let counts = stored.counts { detail += "; counts per day and month read for \(counts.count) patient(s)" }
            return Check(name: name, passed: true, detail: detail)
        }
    }

    /// Reachability (and TLS), then the alert list and its names; false when the SUT cannot be reached at all.
    static func alertSource(
        _ client: any HTTPExchange,
        _ auth: RequestAuth,
        _ target: Target,
        into checks: inout [Check]
    ) async -> Bool {
        let source = target.profile.alerts
        if source.absent || source.pushOnly != nil {
            return await pushedSource(source.pushOnly, client, target, into: &checks)
        }
        let url = source.absoluteURL(base: target.base)
        let (read, first) = await AlertList.fetch(
            client,
            base: target.base,
            source: source,
            mapping: target.profile.mapping,
            auth: auth
        )
        guard let reply = first else {
            var reason = "no answer"
            if case .failure(let p) = read { reason = p.text }
            let hint = RunHealth.tlsHint(
                reason,
                url: url,
                clientCertificate: target.clientCertificate != nil,
                names: target.names
            )
            checks.append(Check(name: "reachable", passed: false, detail: reason + hint))
            return false
        }
        checks.append(reachable(target, url: url, reply: reply))
        let name = "alert source"
        switch read {
        case .failure(let problem):
            let auth =
                reply.status == 401 || reply.status == 403
                ? " (alert reads need a reader credential: auth.reader or \(target.names[.header]))" : ""
            checks.append(Check(name: name, passed: false, detail: problem.text + auth))
        case .success(let list) where list.unreadable > 0:
            let detail =
                "GET \(url) lists \(list.unreadable) alert(s) the harness cannot read; first: \(list.firstUnreadable ?? "")"
            checks.append(Check(name: name, passed: false, detail: detail))
        case .success(let list):
            checks.append(
                Check(
                    name: name,
                    passed: true,
                    detail: "GET \(url): \(list.alerts.count) alert(s) listed, every one readable"
                        + (list.outcomes.first.map {
                            "; the SUT said beside them (an OperationOutcome, passed over): " + $0
                        }
                            ?? "")
                )
            )
            checks.append(mappingCheck(list))
        }
        return true
    }

    /// A SUT whose alerts are only pushed (`channel`), or that has no alert source (nil, `alerts:
    /// none`): reachable when its base URL answers at all; pushed alerts cannot be read before a run
    /// (the run ends with exit 3 when it delivers nothing or alerts it cannot read).
    static func pushedSource(
        _ channel: PushChannel?,
        _ client: any HTTPExchange,
        _ target: Target,
        into checks: inout [Check]
    ) async -> Bool {
        let url = target.base.hasSuffix("/") ? target.base : target.base + "/"
        do throws(HTTPTransportError) {
            checks.append(
                reachable(target, url: url, reply: try await client.get(url, headers: target.profile.auth.headers))
            )
        } catch {
            let hint = RunHealth.tlsHint(
                error.reason,
                url: url,
                clientCertificate: target.clientCertificate != nil,
                names: target.names
            )
            checks.append(
                Check(name: "reachable", passed: false, detail: "GET \(url) got no answer: \(error.reason)" + hint)
            )
            return false
        }
        guard let channel else {
            let detail = "none (alerts: none): alerts are not read, and every check about them is not-applicable"
            checks.append(Check(name: "alert source", passed: true, detail: detail))
            return true
        }
        let detail =
            "alerts are pushed on \(channel.rawValue) (alerts.source), not listed: nothing to read before a run; a run in which none arrives while alerts are expected, or one cannot be read, ends with exit 3"
        checks.append(Check(name: "alert source", passed: true, detail: detail))
        return true
    }

    /// The SUT answered `url`: over TLS (verified or not) or plain HTTP.
    static func reachable(_ target: Target, url: String, reply: HTTPReply) -> Check {
        guard url.hasPrefix("https://") else {
            return Check(
                name: "reachable",
                passed: true,
                detail: "\(target.base) answers over plain HTTP, HTTP/\(reply.httpVersion)"
            )
        }
        if target.insecure {
            return Check(
                name: "reachable",
                passed: true,
                detail: "\(target.base) answers over TLS (certificate NOT verified: \(target.names[.insecure]))"
            )
        }
        return Check(
            name: "reachable",
            passed: true,
            detail: "\(target.base) answers over TLS (certificate verified), HTTP/\(reply.httpVersion)"
        )
    }

    /// Every listed alert's rule and severity names map to VitalSim's.
    static func mappingCheck(_ list: AlertList) -> Check {
        let unmapped = list.alerts.compactMap(\.unmapped)
        guard let first = unmapped.first else {
            let detail =
                list.alerts.isEmpty
                ? "no alert listed yet to check the names of (a run reports unmapped names as findings)"
                : "the rule and severity of all \(list.alerts.count) listed alert(s) map to VitalSim's"
            return Check(name: "alert names mapped", passed: true, detail: detail)
        }
        let names = Array(Set(unmapped)).sorted()
        return Check(
            name: "alert names mapped",
            passed: false,
            detail:
                "\(unmapped.count) listed alert(s) have names the profile does not map (first: \(first)); all: \(names.joined(separator: ", ")); add them to rules:/severities:"
        )
    }

    /// The first valid HTTP request of each route the scenario's readings take (method, path with
    /// its patient and device in place of theirs, content type) and the first MQTT message of each
    /// topic shape, in plan order — of the kinds the profile claims (`conformance.kinds`) and, where
    /// one is, of a kind its read-back lists (`stored-readings.kinds`), so that what the probe
    /// stores can be read back; and the first reading the profile's routes cannot carry, if any.
    package static func probes(
        _ scenario: Scenario,
        seed: UInt64?,
        profile: SUTProfile = .vitalsim,
        naming: WireNaming = .identity
    ) -> ([PlannedRequest], String?) {
        var shapes: [String: Int] = [:]
        var out: [PlannedRequest] = []
        var readBack: [Int] = []
        var unroutable: String?
        let routes = profile.sendingRoutes
        let listed = profile.storedReadings.map { source in source.kinds ?? Set(VitalKind.allCases) }
        let stream = TrafficPlanStream(
            for: scenario,
            seed: seed,
            routes: routes,
            naming: naming,
            mqttTopic: profile.mqtt.topic
        )
        for r in stream
        where r.expectedRejection == nil {
            if let reason = r.unroutable {
                unroutable = unroutable ?? reason
                continue
            }
            let shape = (r.topic ?? r.path).replacingOccurrences(of: naming.patient(r.patientID), with: "{patient}")
                .replacingOccurrences(
                    of: naming.device(r.deviceID, of: r.patientID),
                    with: "{device}"
                )
            let key = "\(r.method) \(shape) \(r.contentType)"
            // Every kind read back is best, some next (a batch mixing kinds), none last.
            let readable =
                listed.map { kinds in
                    r.kinds.allSatisfy(kinds.contains) && !r.kinds.isEmpty
                        ? 2 : r.kinds.contains(where: kinds.contains) ? 1 : 0
                } ?? 2
            if let index = shapes[key] {
                if readable > readBack[index] { (out[index], readBack[index]) = (r, readable) }
            } else {
                shapes[key] = out.count
                out.append(r)
                readBack.append(readable)
            }
        }
        return (out, unroutable)
    }

    /// One valid request accepted (2xx) and the same body cut in half refused (4xx) on one route.
    static func ingestion(
        _ client: any HTTPExchange,
        _ plannedRequest: PlannedRequest,
        _ auth: RequestAuth,
        _ target: Target,
        naming: WireNaming = .identity
    ) async -> [Check] {
        let url = plannedRequest.url(base: target.base)
        let credentials: [String]
        let wire = (
            naming.patient(plannedRequest.patientID),
            naming.device(plannedRequest.deviceID, of: plannedRequest.patientID)
        )
        switch await auth.ingestion(patient: plannedRequest.patientID, device: plannedRequest.deviceID, wire: wire) {
        case .success(let held): credentials = held.0
        case .failure(let problem):
            return [
                Check(
                    name: "credentials for \(plannedRequest.method) \(plannedRequest.path)",
                    passed: false,
                    detail: problem.message
                )
            ]
        }
        let headers = ["Content-Type: " + plannedRequest.contentType] + plannedRequest.headers + credentials
        let valid = await answer(client, url, plannedRequest.body, headers, method: plannedRequest.method)
        var checks = [
            Check(
                name: "accepts a valid reading on \(plannedRequest.method) \(plannedRequest.path)",
                passed: valid.status.map { (200..<300).contains($0) } ?? false,
                detail: "\(plannedRequest.readings.first?.id ?? "?"): " + describe(valid, names: target.names)
            )
        ]
        let invalid = await answer(
            client,
            url,
            Array(plannedRequest.body.prefix(plannedRequest.body.count / 2)),
            headers,
            method: plannedRequest.method
        )
        checks.append(
            Check(
                name: "refuses an invalid body on \(plannedRequest.method) \(plannedRequest.path)",
                passed: invalid.status.map { (400..<500).contains($0) && !RunHealth.configurationStatuses.contains($0) }
                    ?? false,
                detail: "the body cut in half: " + describe(invalid, names: target.names)
            )
        )
        return checks
    }

    static func answer(
        _ client: any HTTPExchange,
        _ url: String,
        _ body: [UInt8],
        _ headers: [String],
        method: String = "POST"
    ) async -> (status: Int?, text: String) {
        do throws(HTTPTransportError) {
            let reply = try await client.post(url, body: body, headers: headers, method: method)
            return (reply.status, RunHealth.excerpt(reply.body))
        } catch { return (nil, "no answer: \(error.reason)") }
    }

    /// "answered 401: {…} (the SUT wants credentials: --header)" and the like.
    static func describe(_ a: (status: Int?, text: String), names: SettingNames) -> String {
        guard let status = a.status else { return a.text }
        let hint: String
        switch status {
        case 401, 403: hint = " (the SUT wants credentials it accepts: auth of the profile, or \(names[.header]))"
        case 404, 405: hint = " (no such route on the SUT: check \(names[.target]) and the SUT's paths)"
        case 429, 503: hint = " (the SUT is overloaded or down)"
        default: hint = ""
        }
        return "answered \(status): \(a.text)\(hint)"
    }

    /// The MQTT broker accepts a connection and the subscription to the SUT's rejections.
    static func broker(_ target: Target) async -> Check {
        guard let endpoint = target.mqtt else {
            return Check(
                name: "MQTT broker",
                passed: false,
                detail: "the scenario sends over MQTT: give the SUT's broker with \(target.names[.mqttBroker])"
            )
        }
        let name = "MQTT broker \(endpoint.host):\(endpoint.port)"
        do throws(MQTTError) {
            let mqttClient = try MQTTClient(
                target.mqttCredentials.applied(
                    to: .init(
                        host: endpoint.host,
                        port: endpoint.port,
                        clientID: "vitalsim-doctor-\(getpid())",
                        caFile: target.mqttCAFile
                    )
                )
            )
            defer { mqttClient.disconnect() }
            try await mqttClient.connect()
            guard let rejections = target.profile.mqtt.rejections else {
                return Check(
                    name: name,
                    passed: true,
                    detail: "connected (the SUT publishes no refusals: mqtt.rejections: none)"
                )
            }
            try await mqttClient.subscribeAcknowledged(rejections.topic, qos: 1)
            return Check(name: name, passed: true, detail: "connected and subscribed to \(rejections.topic)")
        } catch {
            return Check(name: name, passed: false, detail: "\(error)")
        }
    }
}
