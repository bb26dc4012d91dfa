import VitalSimCore
import Yams

/// Loads a credentials file (`vitalsim serve --credentials FILE`):
///
/// ```yaml
/// devices:
///   - token: 3f9c…            # bearer token (or API key sent as X-API-Key)
///     patient: "501"
///     device: hr-strap-501
/// readers:
///   - token: 77ab…
/// admins:                     # may enrol and delete patients (PUT/DELETE /api/v1/patients/{id})
///   - token: 0c5e…
/// people:                     # read only the patients in their care (a patient: their own data)
///   - token: 9d1a…
///     person: ann             # a patient's own id for role patient
///     role: caregiver         # patient | caregiver | clinician
///     expires: 2026-01-01T00:00:00Z   # optional; refused (401) from then on
///     revoked: true           # optional; refused (401)
/// ```
package enum CredentialsLoader {
    package static func parse(_ text: String, file: String) throws(ScenarioLoadError) -> Credentials {
        let root = try ScenarioLoader.compose(text, file: file)
        let reader = YAMLReader(file: file)
        var credentials = Credentials()
        var tokens: Set<String> = []
        func token(_ fields: Fields, _ node: Node) -> String? {
            guard let value = fields.string("token") else { return nil }
            if value.count < 16 {
                reader.fail(fields.value("token"), fields.path("token"), "a token needs at least 16 characters")
            }
            if !tokens.insert(value).inserted {
                reader.fail(fields.value("token"), fields.path("token"), "this token is already used by another entry")
            }
            return value
        }
        if let top = reader.mapping(root, "", allowed: ["devices", "readers", "admins", "people"], required: []) {
            for (i, node) in (top.has("devices") ? top.list("devices") ?? [] : []).enumerated() {
                guard
                    let entry = reader.mapping(
                        node,
                        "devices[\(i)]",
                        allowed: ["token", "patient", "device"],
                        required: ["token", "patient", "device"]
                    )
                else { continue }
                if let secret = token(entry, node), let patient = entry.string("patient"),
                    let device = entry.string("device")
                {
                    // A patient the API could never serve back (read-back, search, deletion).
                    if let problem = PatientIdentifier.problem(patient) {
                        reader.fail(entry.value("patient"), entry.path("patient"), problem)
                    }
                    credentials.devices[secret] = (patient, device)
                }
            }
            for (i, node) in (top.has("readers") ? top.list("readers") ?? [] : []).enumerated() {
                guard let entry = reader.mapping(node, "readers[\(i)]", allowed: ["token"], required: ["token"]) else {
                    continue
                }
                if let secret = token(entry, node) { credentials.readers.insert(secret) }
            }
            for (i, node) in (top.has("admins") ? top.list("admins") ?? [] : []).enumerated() {
                guard let entry = reader.mapping(node, "admins[\(i)]", allowed: ["token"], required: ["token"]) else {
                    continue
                }
                if let secret = token(entry, node) { credentials.admins.insert(secret) }
            }
            for (i, node) in (top.has("people") ? top.list("people") ?? [] : []).enumerated() {
                if let person = person(node, "people[\(i)]", reader, token) {
                    credentials.people[person.token] = person
                }
            }
            if !credentials.enforced && reader.issues.isEmpty {
                reader.fail(root, "", "no credentials: list devices, readers, admins and/or people")
            }
        }
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return credentials
    }

    /// One `people:` entry (``PersonCredential/read(_:token:)``), its token checked as every other.
    static func person(
        _ node: Node,
        _ field: String,
        _ reader: YAMLReader,
        _ token: (Fields, Node) -> String?
    ) -> PersonCredential? {
        guard
            let entry = reader.mapping(
                node,
                field,
                allowed: PersonCredential.keys,
                required: PersonCredential.required
            ),
            let secret = token(entry, node)
        else { return nil }
        return PersonCredential.read(entry, token: secret)
    }
}
