import Foundation
import Mustache
import RunRecord
import VitalSimCore

/// How a SUT tells who was notified of each alert and takes the care team's actions (`care-team:`
/// of a profile): each person's notifications read with that person's credential (from the
/// profile's `people:`), and an action posted on an alert with the acting person's credential.
package struct CareTeamSource: Sendable, Equatable {
    /// Where each person reads their notifications (`notifications:`); nil: not read, and the
    /// golden files' recipients are not judged.
    package var notifications: Notifications?
    /// How a person acts on an alert (`actions:`); nil: the timeline's actions are not sent.
    package var actions: Actions?

    package init(notifications: Notifications? = nil, actions: Actions? = nil) {
        self.notifications = notifications
        self.actions = actions
    }

    /// A person's notifications: the answer to `url` (a path on the SUT's base URL or an absolute
    /// URL, `{person}` standing for the person's id) with the person's credential, the list at
    /// `list`, each item's alert id and time.
    package struct Notifications: Sendable, Equatable {
        package var url: String
        package var list: JSONPointer
        /// The alert's id at the SUT (as the alert list shows it).
        package var alertID: FieldSpec
        /// When the person was notified (device time).
        package var at: FieldSpec
        package var timeFormat = AlertFields.TimeFormat.rfc3339

        package init(url: String, list: JSONPointer, alertID: FieldSpec, at: FieldSpec) {
            self.url = url
            self.list = list
            self.alertID = alertID
            self.at = at
        }

        /// The notifications of one answer's body: each with its alert id and Unix ms, or why one
        /// item cannot be read.
        package func read(_ document: Any) -> Result<[(alertID: String, at: Int64)], UnreadableAlert> {
            guard let items = list.walk(document) as? [Any] else {
                return .failure(UnreadableAlert(reason: "the answer has no list at \(list)"))
            }
            var out: [(alertID: String, at: Int64)] = []
            for item in items {
                let id: String
                switch alertID.text(in: item, name: "alertId") {
                case .success(let text): id = text
                case .failure(let problem): return .failure(problem)
                }
                switch at.time(in: item, name: "notifiedAt", format: timeFormat) {
                case .success(let ms): out.append((id, ms))
                case .failure(let problem): return .failure(problem)
                }
            }
            return .success(out)
        }
    }

    /// An action on an alert: `method` to `path` (`{alert}`: the alert's id at the SUT,
    /// `{patient}`: the patient's), the body a Mustache template of `action` (the SUT's name of it,
    /// `action-names`), `person` and `patientId`; a status in `expect` means taken.
    package struct Actions: Sendable, Equatable {
        package var method = "POST"
        package var path: String
        package var body: String
        package var contentType = "application/json"
        package var expect: Set<Int> = [200, 201, 204]
        /// The SUT's name of each action; an action not listed goes as VitalSim's.
        package var names: [CareAction: String] = [:]

        package init(path: String, body: String) {
            self.path = path
            self.body = body
        }

        /// The request body of `action` by `person` on the alert with id `alert` of `patient` (ids at
        /// the SUT), rendered from ``body`` without HTML escaping.
        package func body(_ action: CareAction, person: String, patient: String, alert: String) -> [UInt8] {
            let context: [String: Any] = [
                "action": names[action] ?? action.rawValue, "person": person, "patientId": patient, "alertId": alert,
            ]
            let text = (try? MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}" + body))?.render(context) ?? body
            return Array(text.utf8)
        }
    }

    /// The reference contract's (docs/openapi.yaml).
    package static let vitalsim = CareTeamSource(
        notifications: Notifications(
            url: "/api/v1/notifications?recipient={person}",
            list: JSONPointer(tokens: ["notifications"]),
            alertID: FieldSpec(JSONPointer(tokens: ["alertId"])),
            at: FieldSpec(JSONPointer(tokens: ["notifiedAt"]))
        ),
        actions: Actions(
            path: "/api/v1/alerts/{alert}/actions",
            body: #"{"action": "{{action}}", "person": "{{person}}"}"#
        )
    )
}
