import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReferenceEngine
import VitalSimCore

/// Patient enrolment and deletion (`/api/v1/patients/{id}`), so that one long-lived reference SUT
/// can serve scenario after scenario: a harness enrols each patient with its profile before the
/// scenario and deletes it after (a SUT profile's `lifecycle`).
extension ReferenceServer {
    /// Patient ids the API accepts: those readings may carry
    /// (``PayloadValidation/patientIdentifier(_:field:)``), at most 64 characters, without `/`.
    static func validPatientID(_ id: String) -> Bool {
        (try? PayloadValidation.patientIdentifier(id, field: "patientId")) != nil
    }

    /// The `{patient}` path parameter, percent-decoded (empty when its escapes are invalid).
    static func patientID(_ context: BasicRequestContext) -> String {
        (context.parameters.get("patient") ?? "").removingPercentEncoding ?? ""
    }

    /// The 400 answer to a patient id the API does not accept; nil for a valid one.
    static func invalidPatientID(_ id: String) -> Response? {
        guard !validPatientID(id) else { return nil }
        return json(
            .badRequest,
            ValidationFailure(
                field: "patientId",
                message: "a patient id is 1 to 64 characters, without '/' or control characters"
            ).json
        )
    }

    static func patientRoutes(_ router: Router<BasicRequestContext>, _ context: ServerContext) {
        router.put("api/v1/patients/:patient") { request, requestContext in
            await enrol(request, patientID(requestContext), context)
        }
        router.get("api/v1/patients/:patient") { request, requestContext in
            let scope: Set<String>?
            switch await readScope(request, context, refused: "read patients") {
            case .success(let granted): scope = granted
            case .failure(let refusal): return refusal.response
            }
            let id = patientID(requestContext)
            if let invalid = invalidPatientID(id) { return invalid }
            if let refusal = outside(scope, id) { return refusal }
            guard let patient = await context.store.patient(id) else {
                return json(
                    .notFound,
                    ValidationFailure(field: "patient", message: "no patient \(id)", status: 404).json
                )
            }
            await audited(request, context, .read, [id], what: "patient")
            return json(.ok, patientJSON(id, patient))
        }
        router.delete("api/v1/patients/:patient") { request, requestContext in
            if let refusal = authorize(
                request,
                context,
                admins: true,
                readers: false,
                required: "an admin",
                refused: "manage patients"
            ) {
                return refusal
            }
            let id = patientID(requestContext)
            if let invalid = invalidPatientID(id) { return invalid }
            do throws(StorageError) {
                if !context.faults.keepDeleted { _ = try await context.store.forget(id) }
            } catch {
                return json(
                    .serviceUnavailable,
                    ValidationFailure(field: "", message: "the patient could not be deleted; retry", status: 503).json
                )
            }
            await audited(request, context, .delete, [id], what: "patient")
            return Response(status: .noContent)
        }
    }

    /// `PUT /api/v1/patients/{id}` with `{"profile": "copd"}` (and optionally `devices`, a list,
    /// `thresholds`, the patient's own limits: ``PersonalLimits``, `careTeam` and `escalation`:
    /// ``EscalationJSON``): 201 when enrolled anew, 200 when it was already enrolled (its profile,
    /// limits, care team and policy are replaced).
    static func enrol(_ request: Request, _ id: String, _ context: ServerContext) async -> Response {
        if let refusal = authorize(
            request,
            context,
            admins: true,
            readers: false,
            required: "an admin",
            refused: "manage patients"
        ) {
            return refusal
        }
        if let invalid = invalidPatientID(id) { return invalid }
        guard let buffer = try? await request.body.collect(upTo: maxBody) else {
            return json(
                .contentTooLarge,
                ValidationFailure(field: "", message: "the body exceeds \(maxBody) bytes").json
            )
        }
        let enrolment: Enrolment
        do throws(ValidationFailure) {
            enrolment = try Self.enrolment(id, Array(buffer.readableBytesView), rules: await context.store.rules)
        } catch {
            return json(.badRequest, error.json)
        }
        let isNew: Bool
        do throws(StorageError) {
            let known = await context.store.patient(id)?.enrolled ?? false
            try await context.store.enrol(enrolment)
            isNew = !known
        } catch {
            return json(
                .serviceUnavailable,
                ValidationFailure(field: "", message: "the enrolment could not be stored; retry", status: 503).json
            )
        }
        let summary =
            await context.store.patient(id)
            ?? PatientSummary(
                profile: enrolment.profile,
                limits: enrolment.limits,
                enrolled: true,
                readings: 0,
                alerts: 0
            )
        await audited(request, context, isNew ? .create : .update, [id], what: "patient")
        return json(isNew ? .created : .ok, patientJSON(id, summary))
    }

    /// The enrolment of patient `id` an enrolment body asks for: profile, own limits (checked
    /// against `rules`), care team and escalation policy (its people in the care team); unknown
    /// fields are refused.
    static func enrolment(
        _ id: String,
        _ bytes: [UInt8],
        rules: [AlertRule]
    ) throws(ValidationFailure) -> Enrolment {
        let input = try JSONInput.parse(bytes, maxDepth: maxDepth)
        guard case let .object(o) = input else { throw ValidationFailure(field: "", message: "expected a JSON object") }
        let fields = ["profile", "devices", "patientId", "thresholds", "careTeam", "escalation"]
        for key in o.keys.sorted() where !fields.contains(key) {
            throw ValidationFailure(
                field: key,
                message: "unknown field \(key); an enrolment has profile, devices, thresholds, careTeam and escalation"
            )
        }
        guard case let .string(name)? = o["profile"] else {
            throw ValidationFailure(field: "profile", message: "profile is required, a string")
        }
        guard let profile = Profile(rawValue: name) else {
            throw ValidationFailure(
                field: "profile",
                message: "unknown profile \(name); valid: \(Profile.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        if let devices = o["devices"] {
            guard case let .array(list) = devices else {
                throw ValidationFailure(field: "devices", message: "devices must be a list")
            }
            for (i, d) in list.enumerated() {
                guard case .object = d else {
                    throw ValidationFailure(field: "devices[\(i)]", message: "a device is an object")
                }
            }
        }
        if let id = o["patientId"], !id.isString {
            throw ValidationFailure(field: "patientId", message: "patientId must be a string")
        }
        let limits = try o["thresholds"].map { t throws(ValidationFailure) in
            try PersonalLimits.parse(t, rules: rules, profile: profile)
        }
        let team = try o["careTeam"].map(careTeam) ?? []
        let escalation = try o["escalation"].map { e throws(ValidationFailure) in
            try EscalationJSON.parse(e, patient: id, careTeam: team)
        }
        return Enrolment(
            patient: id,
            profile: profile,
            limits: limits ?? [],
            careTeam: team,
            escalation: escalation ?? EscalationPolicy()
        )
    }

    /// An enrolment's `careTeam`: `[{"person": ID, "role": "caregiver"|"clinician"}]`, each person once.
    static func careTeam(_ value: JSONInput) throws(ValidationFailure) -> [CareTeamMember] {
        guard case let .array(list) = value else {
            throw ValidationFailure(field: "careTeam", message: "careTeam must be a list of {person, role}")
        }
        var team: [CareTeamMember] = []
        for (i, entry) in list.enumerated() {
            let field = "careTeam[\(i)]"
            guard case let .object(o) = entry, o.keys.allSatisfy({ ["person", "role"].contains($0) }) else {
                throw ValidationFailure(field: field, message: "a care team member is {person, role}")
            }
            guard case let .string(person)? = o["person"], validPatientID(person) else {
                throw ValidationFailure(field: field + ".person", message: "person is an id of 1 to 64 characters")
            }
            guard case let .string(name)? = o["role"], let role = CareRole(rawValue: name) else {
                throw ValidationFailure(field: field + ".role", message: "role is caregiver or clinician")
            }
            guard !team.contains(where: { $0.id == person }) else {
                throw ValidationFailure(field: field + ".person", message: "\(person) is already in the care team")
            }
            team.append(CareTeamMember(id: person, role: role))
        }
        return team
    }

    static func patientJSON(_ id: String, _ patientSummary: PatientSummary) -> JSONValue {
        .object([
            ("patientId", .string(id)), ("profile", .string(patientSummary.profile.rawValue)),
            ("thresholds", ThresholdOverride.json(patientSummary.limits)),
            ("enrolled", .bool(patientSummary.enrolled)), ("readings", .int(Int64(patientSummary.readings))),
            ("alerts", .int(Int64(patientSummary.alerts))),
        ])
    }
}
