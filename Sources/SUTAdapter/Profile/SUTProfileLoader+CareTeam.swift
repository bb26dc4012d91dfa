import Foundation
import VitalSimCore
import Yams

extension SUTProfileLoader.Context {
    /// `care-team:`: `notifications` (`url`, `list`, `fields: {alert-id, at}`, `time-format`) and
    /// `actions` (`method`, `path` with `{alert}`, `body`, `content-type`, `expect`, `action-names`).
    func careTeam(_ node: Node) -> CareTeamSource? {
        guard let fields = reader.mapping(node, "care-team", allowed: ["notifications", "actions"]) else { return nil }
        var source = CareTeamSource()
        if let notificationsNode = fields.value("notifications") {
            source.notifications = notifications(notificationsNode)
        }
        if let actionsNode = fields.value("actions") { source.actions = actions(actionsNode) }
        if source.notifications == nil, source.actions == nil, reader.issues.isEmpty {
            fail(fields, "notifications", "give notifications, actions or both")
        }
        return source
    }

    func notifications(_ node: Node) -> CareTeamSource.Notifications? {
        let keys = ["url", "list", "fields", "time-format"]
        guard let f = reader.mapping(node, "care-team.notifications", allowed: keys, required: ["url", "fields"]),
            let url = f.string("url")
        else { return nil }
        guard url.hasPrefix("/") || isHTTPURL(url) else {
            fail(f, "url", "expected an http(s):// URL or a path on the SUT's base URL")
            return nil
        }
        let list = f.has("list") ? pointer(f, "list") : JSONPointer.root
        guard let fieldsNode = f.value("fields"),
            let fields = reader.mapping(
                fieldsNode,
                f.path("fields"),
                allowed: ["alert-id", "at"],
                required: ["alert-id", "at"]
            ),
            let idNode = fields.value("alert-id"), let id = fieldSpec(idNode, fields.path("alert-id")),
            let atNode = fields.value("at"), let at = fieldSpec(atNode, fields.path("at")), let list
        else { return nil }
        var source = CareTeamSource.Notifications(url: url, list: list, alertID: id, at: at)
        if f.has("time-format") {
            source.timeFormat = f.choice("time-format", AlertFields.TimeFormat.self, what: "time format") ?? .rfc3339
        }
        return source
    }

    func actions(_ node: Node) -> CareTeamSource.Actions? {
        let keys = ["method", "path", "body", "content-type", "expect", "action-names"]
        guard let fields = reader.mapping(node, "care-team.actions", allowed: keys, required: ["path", "body"]),
            let path = fields.string("path"), let body = fields.string("body")
        else { return nil }
        if !path.hasPrefix("/") { fail(fields, "path", "expected a path on the SUT's base URL, starting with /") }
        if !path.contains("{alert}") { fail(fields, "path", "put {alert} where the alert's id at the SUT goes") }
        for name in placeholders(path) where !["alert", "patient"].contains(name) {
            fail(fields, "path", "unknown placeholder {\(name)}; valid: {alert}, {patient}")
        }
        _ = mustache(body, origin: fields.value("body"), field: fields.path("body"), file: nil)
        var actions = CareTeamSource.Actions(path: path, body: body)
        if let method = fields.string("method") {
            if ["POST", "PUT", "PATCH"].contains(method) {
                actions.method = method
            } else {
                fail(fields, "method", "expected POST, PUT or PATCH")
            }
        }
        actions.contentType = fields.string("content-type") ?? actions.contentType
        if let expectNode = fields.value("expect"), let statuses = statuses(expectNode, fields.path("expect")) {
            actions.expect = statuses
        }
        if let namesNode = fields.value("action-names"), let names = stringMap(namesNode, fields.path("action-names")) {
            for ours in names.keys.sorted() {
                let theirs = names[ours] ?? ours
                guard let action = CareAction(rawValue: ours), action.stopsEscalation else {
                    reader.fail(
                        namesNode,
                        fields.path("action-names") + "." + ours,
                        "valid: acknowledge, dismiss, respond"
                    )
                    continue
                }
                actions.names[action] = theirs
            }
        }
        return actions
    }
}
