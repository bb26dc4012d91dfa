import Foundation
import RunRecord
import Traffic
import Transports
import VitalSimCore

/// Runs a SUT profile's `lifecycle` steps for one scenario: each patient enrolled before its
/// traffic (every `enrol` step in order, patients in file order) and reset after (every `reset`
/// step, for each patient whose enrolment began, even when the run failed). A step that fails is a
/// misconfiguration: the message names the step, the patient (both ids), the request or command,
/// and what came back.
package struct PatientLifecycle: Sendable {
    let lifecycle: Lifecycle
    let naming: WireNaming
    /// The run id and the scenario's name as placeholders fill them in.
    let run: String
    let scenarioName: String
    let patients: [PatientSpec]
    let base: String
    let client: any HTTPExchange
    let auth: RequestAuth
    /// The harness's webhook receiver URL the SUT is to POST alerts to (`webhook` in templates).
    let webhook: String?

    package init(
        _ lifecycle: Lifecycle,
        naming: WireNaming,
        run: String,
        scenario: Scenario,
        base: String,
        client: any HTTPExchange,
        auth: RequestAuth,
        webhook: String? = nil
    ) {
        self.lifecycle = lifecycle
        self.naming = naming
        self.run = run
        scenarioName = WireNaming.idSafe(scenario.name)
        patients = scenario.patients
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.client = client
        self.auth = auth
        self.webhook = webhook
    }

    /// Enrols every patient; returns the patients whose enrolment began (to reset) and the first
    /// failure, if any (the later patients are then not enrolled).
    package func enrol() async -> (started: [PatientSpec], problem: LifecycleProblem?) {
        guard !lifecycle.enrol.isEmpty else { return (patients, nil) }
        var started: [PatientSpec] = []
        for p in patients {
            started.append(p)
            for step in lifecycle.enrol {
                if let problem = await perform(step, for: p) { return (started, problem) }
            }
        }
        return (started, nil)
    }

    /// Resets `patients` (every step for each, even after a failure); returns the first failure.
    package func reset(_ patients: [PatientSpec]) async -> LifecycleProblem? {
        var first: LifecycleProblem?
        for p in patients {
            for step in lifecycle.reset {
                if let problem = await perform(step, for: p) {
                    first = first ?? problem
                    break
                }
            }
        }
        return first
    }

    /// Runs one step for one patient; nil when it succeeded.
    func perform(_ step: LifecycleStep, for p: PatientSpec) async -> LifecycleProblem? {
        let wire = naming.patient(p.id)
        let who = wire == p.id ? "patient \(p.id)" : "patient \(p.id) (\(wire) at the SUT)"
        let fail = { (what: String) in LifecycleProblem("\(step.field) (\(step.summary)) for \(who): \(what)") }
        switch step.action {
        case let .request(method, path, _, contentType):
            var segment = CharacterSet.urlPathAllowed
            segment.remove("/")
            let encoded = wire.addingPercentEncoding(withAllowedCharacters: segment) ?? wire
            let url = base + LifecycleStep.fill(path, run: run, scenario: scenarioName, patient: encoded)
            let body = step.body(context(p))
            return await request(method, url, body: body, contentType: contentType, step: step, patient: encoded).map {
                fail($0)
            }
        case let .command(arguments, directory):
            let filled = arguments.map { LifecycleStep.fill($0, run: run, scenario: scenarioName, patient: wire) }
            let problem = await PatientLifecycle.command(
                filled,
                directory: directory,
                environment: environment(p),
                input: patientJSON(p),
                timeout: step.timeout
            )
            auth.contract.command(step.role, filled, problem: problem)
            return problem.map { fail($0) }
        }
    }

    /// The first request of the `enrol` (or, with `reset`, the `reset`) steps for `p`, filled in,
    /// for the access matrix to send with a person's credential; for a profile without such a step
    /// the reference contract's (`PUT` or `DELETE /api/v1/patients/{id}`) when `referenceContract`,
    /// else nil (not probed).
    package func probeRequest(
        reset: Bool,
        for p: PatientSpec,
        referenceContract: Bool
    ) -> (method: String, url: String, body: [UInt8]?, contentType: String)? {
        let wire = naming.patient(p.id)
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        let encoded = wire.addingPercentEncoding(withAllowedCharacters: segment) ?? wire
        for step in reset ? lifecycle.reset : lifecycle.enrol {
            guard case let .request(method, path, _, contentType) = step.action else { continue }
            let url = base + LifecycleStep.fill(path, run: run, scenario: scenarioName, patient: encoded)
            return (method, url, step.body(context(p)), contentType)
        }
        guard referenceContract else { return nil }
        let url = base + "/api/v1/patients/" + encoded
        if reset { return ("DELETE", url, nil, "application/json") }
        let body = JSONValue.object([
            ("profile", .string(p.profile.rawValue)),
            (
                "careTeam",
                .array(p.careTeam.map { .object([("person", .string($0.id)), ("role", .string($0.role.rawValue))]) })
            ),
            ("escalation", Self.escalationJSON(p.escalation.renamed(p.id, as: wire))),
        ])
        return ("PUT", url, Array(body.serialized().utf8), "application/json")
    }

    /// Sends a step's request (credentials: `auth.headers` with `lifecycle.headers`, else with the
    /// devices file's first admin token, else those of alert reads, an OAuth2 token renewed once
    /// after a 401); nil when its status is one the step expects.
    func request(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        contentType: String,
        step: LifecycleStep,
        patient: String
    ) async -> String? {
        let headers = body == nil ? [] : ["Content-Type: \(contentType)"]
        let sent = await administrative(
            method,
            url,
            body: body,
            headers: headers,
            timeout: step.timeout,
            role: step.role,
            patient: patient
        )
        switch sent {
        case .failure(let problem): return problem.message
        case .success(let reply):
            guard step.succeeded(status: reply.status) else {
                let expected =
                    step.expect.map { "expected " + $0.sorted().map(String.init).joined(separator: " or ") }
                    ?? "expected 2xx"
                return "\(method) \(url) answered \(reply.status) (\(expected)): \(RunHealth.excerpt(reply.body))"
            }
            return nil
        }
    }

    /// A request with an administrator's credentials (``administratorHeaders()``, an OAuth2 token
    /// renewed once after a 401) and `headers`, logged in the SUT contract under `role`; the
    /// answer, or why there is none.
    func administrative(
        _ method: String,
        _ url: String,
        body: [UInt8]?,
        headers extra: [String] = [],
        timeout: Double = 30,
        role: SUTContract.Role,
        patient: String? = nil
    ) async -> Result<HTTPReply, LifecycleProblem> {
        var renewed = false
        while true {
            var headers: [String]
            let token: String?
            switch await administratorHeaders() {
            case .success(let held): (headers, token) = held
            case .failure(let problem): return .failure(LifecycleProblem("credentials: \(problem.message)"))
            }
            headers += extra
            let reply: HTTPReply
            do throws(HTTPTransportError) {
                reply = try await client.send(method, url, body: body, headers: headers, timeout: timeout)
            } catch {
                auth.contract.unanswered(role, method: method, url: url, reason: error.reason, patient: patient)
                return .failure(LifecycleProblem("\(method) \(url) got no answer: \(error.reason)"))
            }
            auth.contract.answered(
                role,
                method: method,
                url: url,
                status: reply.status,
                body: reply.body,
                patient: patient
            )
            if reply.status == 401, !renewed, auth.refused(token: token) {
                renewed = true
                continue
            }
            return .success(reply)
        }
    }
}

extension PatientLifecycle {
    /// The headers of an administrator's requests (enrolment, reset, the audit trail): the
    /// lifecycle's own headers, else the credentials file's first admin token, else the reader's
    /// (with the token an OAuth renewal would replace).
    package func administratorHeaders() async -> Result<([String], token: String?), CredentialProblem> {
        if let own = lifecycle.headers { return .success((auth.auth.headers + own, token: nil)) }
        if let devices = auth.auth.devices, let admin = devices.admins.first {
            return .success((auth.auth.headers + [devices.header(for: admin)], token: nil))
        }
        return await auth.reader()
    }
}

/// A lifecycle step that failed: the run ends as a misconfiguration (exit 3).
package struct LifecycleProblem: Error, Sendable, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
}

extension LifecycleStep {
    /// The step's part in the reports' SUT contract.
    var role: SUTContract.Role { field.hasPrefix("lifecycle.reset") ? .reset : .enrol }
}
