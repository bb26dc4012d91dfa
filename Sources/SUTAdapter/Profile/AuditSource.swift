import Foundation
import RunRecord

/// Where a SUT's audit trail is read back (`audit:` of a profile): the answer to `url` (a
/// path on the SUT's base URL or an absolute URL, `{patient}` standing for a patient's id at the
/// SUT, read once per patient then) with the profile's admin credential, the entries at `list`,
/// each entry's person, patient, action and time. A person or patient given as a reference
/// (`RelatedPerson/ann`, `Patient/501`) counts by what follows its last `/`.
package struct AuditSource: Sendable, Equatable {
    package var url: String
    package var list: JSONPointer
    /// Who did it (an entry without one, such as an administrator's, concerns no person).
    package var who: FieldSpec
    package var patient: FieldSpec
    package var action: FieldSpec
    package var at: FieldSpec
    package var timeFormat = AlertFields.TimeFormat.rfc3339
    /// The action values that mean a read (`read-actions:`); any other value is a change.
    package var readActions: Set<String> = ["R"]

    package init(url: String, list: JSONPointer, who: FieldSpec, patient: FieldSpec, action: FieldSpec, at: FieldSpec) {
        self.url = url
        self.list = list
        self.who = who
        self.patient = patient
        self.action = action
        self.at = at
    }

    /// The reference SUT's `GET /fhir/AuditEvent` (docs/openapi.yaml): FHIR R4 `AuditEvent`s.
    package static let vitalsim = AuditSource(
        url: "/fhir/AuditEvent?patient={patient}",
        list: JSONPointer(tokens: ["entry"]),
        who: FieldSpec(JSONPointer(tokens: ["resource", "agent", "0", "who", "reference"])),
        patient: FieldSpec(JSONPointer(tokens: ["resource", "entity", "0", "what", "reference"])),
        action: FieldSpec(JSONPointer(tokens: ["resource", "action"])),
        at: FieldSpec(JSONPointer(tokens: ["resource", "recorded"]))
    )

    /// One entry as the SUT gives it: the person and patient at the SUT (reference prefixes
    /// removed), whether it is a change, and when.
    package struct Entry: Sendable, Equatable {
        package var who: String?
        package var patient: String
        package var change: Bool
        package var at: Int64
    }

    /// The entries of one answer's body (an object without a list at `list` holds none: an empty
    /// FHIR Bundle has no `entry`), or why one cannot be read.
    package func read(_ document: Any) -> Result<[Entry], UnreadableAlert> {
        let found = list.walk(document)
        if found == nil, document is [String: Any], !list.tokens.isEmpty { return .success([]) }
        guard let items = found as? [Any] else {
            return .failure(UnreadableAlert(reason: "the answer has no list at \(list)"))
        }
        var out: [Entry] = []
        for item in items {
            let person = try? who.text(in: item, name: "who").get()
            let subject: String
            switch patient.text(in: item, name: "patient") {
            case .success(let text): subject = text
            case .failure(let problem): return .failure(problem)
            }
            let kind: String
            switch action.text(in: item, name: "action") {
            case .success(let text): kind = text
            case .failure(let problem): return .failure(problem)
            }
            switch at.time(in: item, name: "recorded", format: timeFormat) {
            case .success(let ms):
                out.append(
                    Entry(
                        who: person.map(Self.lastSegment),
                        patient: Self.lastSegment(subject),
                        change: !readActions.contains(kind),
                        at: ms
                    )
                )
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(out)
    }

    /// The absolute URL of the trail of `patient` (their id at the SUT, percent-encoded for a query
    /// or a path), or of the whole trail when ``url`` names no `{patient}`.
    package func url(patient: String, base: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?/#")
        let id = patient.addingPercentEncoding(withAllowedCharacters: allowed) ?? patient
        return SUTProfile.resolve(url.replacingOccurrences(of: "{patient}", with: id), base: base)
    }

    /// What follows the last `/` of a reference (`Patient/501` → `501`), or the text itself.
    static func lastSegment(_ text: String) -> String {
        text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? text
    }
}
