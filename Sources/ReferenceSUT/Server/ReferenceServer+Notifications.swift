import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReferenceEngine
import VitalSimCore

/// Who is notified of each alert and what people do with it (the IoT-AI SRS, System Features,
/// Notifications & Alerts): `GET /api/v1/notifications`, a person's inbox (the reader's: everyone's);
/// `POST /api/v1/alerts/{id}/actions`, a person acknowledging, dismissing or responding to an alert
/// of a patient in their care; `GET /api/v1/alerts/{id}/actions`, the actions logged.
extension ReferenceServer {
    static func notificationRoutes(_ router: Router<BasicRequestContext>, _ context: ServerContext) {
        router.get("api/v1/notifications") { request, _ in await notifications(request, context) }
        router.post("api/v1/alerts/:alert/actions") { request, requestContext in
            await act(request, alertID(requestContext), context)
        }
        router.get("api/v1/alerts/:alert/actions") { request, requestContext in
            await actionLog(request, alertID(requestContext), context)
        }
    }

    /// The `{alert}` path parameter, percent-decoded.
    static func alertID(_ context: BasicRequestContext) -> String {
        (context.parameters.get("alert") ?? "").removingPercentEncoding ?? ""
    }

    /// `GET /api/v1/notifications[?recipient=…&patient=…]`: a person reads their own notifications
    /// (naming another recipient is 403); the reader (or an open API) reads anyone's. Devices and
    /// admins read none (403), as they read no alerts.
    static func notifications(_ request: Request, _ context: ServerContext) async -> Response {
        let query = request.uri.queryParameters
        var recipient = query.get("recipient")
        switch principal(request, context, required: "a reader's or a person's") {
        case .failure(let failure): return json(.unauthorized, failure.json)
        case .success(nil), .success(.reader?): break
        case .success(.person(let person)?):
            if let asked = recipient, asked != person.id {
                return refusal(.forbidden, "a person reads their own notifications only, not those of \(asked)")
            }
            recipient = person.id
        case .success:
            return refusal(.forbidden, "this credential may not read notifications")
        }
        let patients = query.get("patient").map { Set([$0]) }
        let list = await context.store.notifications(recipient: recipient, patients: patients)
        await audited(request, context, .read, list.map(\.patientID), what: "notifications")
        return json(.ok, .object([("notifications", .array(list.map(\.json)))]))
    }

    /// `POST /api/v1/alerts/{id}/actions` with `{"action": "acknowledge" | "dismiss" | "respond"}`:
    /// a person acts on an alert of a patient in their care (or their own); 201 with the action as
    /// logged, stamped with the patient's device time. Without credentials configured the body
    /// names the `person`. 404 for an unknown alert, 403 for anyone else.
    static func act(_ request: Request, _ alertID: String, _ context: ServerContext) async -> Response {
        var person: String?
        switch principal(request, context, required: "a person's") {
        case .failure(let failure): return json(.unauthorized, failure.json)
        case .success(.person(let credential)?): person = credential.id
        case .success(nil): break
        case .success: return refusal(.forbidden, "only a person may act on an alert")
        }
        guard let buffer = try? await request.body.collect(upTo: maxBody) else {
            return json(
                .contentTooLarge,
                ValidationFailure(field: "", message: "the body exceeds \(maxBody) bytes").json
            )
        }
        let action: CareAction
        do throws(ValidationFailure) {
            (action, person) = try actionBody(Array(buffer.readableBytesView), person: person)
        } catch {
            return json(.badRequest, error.json)
        }
        guard let alert = await context.store.alert(id: alertID) else {
            return json(.notFound, ValidationFailure(field: "alert", message: "no alert \(alertID)", status: 404).json)
        }
        guard let person, await context.store.cares(person, for: alert.patientID) else {
            return refusal(.forbidden, "this person does not care for patient \(alert.patientID)")
        }
        do throws(StorageError) {
            let logged = try await context.store.act(on: alert, by: person, action)
            await audited(request, context, .update, [alert.patientID], what: "alert \(alertID)")
            return json(.created, logged.json)
        } catch {
            return json(
                .serviceUnavailable,
                ValidationFailure(field: "", message: "the action could not be logged; retry", status: 503).json
            )
        }
    }

    /// The action and person of an action body: `action` one of acknowledge, dismiss, respond;
    /// `person` required when no credential names one, and equal to it when one does; `note` text.
    static func actionBody(_ bytes: [UInt8], person: String?) throws(ValidationFailure) -> (CareAction, String?) {
        let input = try JSONInput.parse(bytes, maxDepth: maxDepth)
        guard case let .object(o) = input else { throw ValidationFailure(field: "", message: "expected a JSON object") }
        for key in o.keys.sorted() where !["action", "person", "note"].contains(key) {
            throw ValidationFailure(field: key, message: "unknown field \(key); an action has action, person and note")
        }
        let valid = CareAction.allCases.filter(\.stopsEscalation).map(\.rawValue)
        guard case let .string(name)? = o["action"], let action = CareAction(rawValue: name), action.stopsEscalation
        else {
            throw ValidationFailure(field: "action", message: "action is one of \(valid.joined(separator: ", "))")
        }
        if let note = o["note"], !note.isString {
            throw ValidationFailure(field: "note", message: "note is a string")
        }
        switch (o["person"], person) {
        case (nil, _): return (action, person)
        case (.string(let named)?, nil) where validPatientID(named): return (action, named)
        case (.string(let named)?, let credential?) where named == credential: return (action, named)
        default:
            throw ValidationFailure(field: "person", message: "person is the id of the person acting (their own)")
        }
    }

    /// `GET /api/v1/alerts/{id}/actions`: the actions logged on an alert, for those who may read
    /// its patient's alerts.
    static func actionLog(_ request: Request, _ alertID: String, _ context: ServerContext) async -> Response {
        let scope: Set<String>?
        switch await readScope(request, context, admins: false, refused: "read alerts") {
        case .success(let granted): scope = granted
        case .failure(let refusal): return refusal.response
        }
        guard let alert = await context.store.alert(id: alertID) else {
            return json(.notFound, ValidationFailure(field: "alert", message: "no alert \(alertID)", status: 404).json)
        }
        if let refusal = outside(scope, alert.patientID) { return refusal }
        let log = await context.store.actions(on: alertID)
        await audited(request, context, .read, [alert.patientID], what: "alert \(alertID)")
        return json(.ok, .object([("actions", .array(log.map(\.json)))]))
    }
}
