import VitalSimCore
import Yams

/// Loads per-device credentials (`auth.devices.file` of a profile), the shape of the reference
/// SUT's `--credentials` file:
///
/// ```yaml
/// devices:
///   - token: 3f9c…        # sent in the profile's header template
///     patient: "501"
///     device: hr-strap-501
/// readers:
///   - token: 77ab…        # for alert reads
/// people:                 # for the access-control matrix
///   - token: 9d1a…
///     person: ann         # as the scenario's care-team names them; a patient's own id for role patient
///     role: caregiver     # patient | caregiver | clinician
///     expires: 2025-01-01T00:00:00Z   # in the past: the SUT must refuse it
///     revoked: true                   # the SUT must refuse it
/// ```
package enum DeviceCredentialsLoader {
    package static func load(path: String, header: String) throws(ScenarioLoadError) -> DeviceCredentials {
        let text: String
        do { text = try FileText.read(path) } catch {
            throw ScenarioLoadError(issues: [
                ScenarioIssue(file: path, line: 0, column: 0, field: "", message: "\(error)")
            ])
        }
        return try parse(text, file: path, header: header)
    }

    package static func parse(
        _ text: String,
        file: String,
        header: String
    ) throws(ScenarioLoadError) -> DeviceCredentials {
        let root = try ScenarioLoader.compose(text, file: file)
        let reader = YAMLReader(file: file)
        var deviceCredentials = DeviceCredentials(file: file, header: header, tokens: [:], readers: [])
        if let top = reader.mapping(root, "", allowed: ["devices", "readers", "admins", "people"]) {
            for (i, node) in (top.list("devices") ?? []).enumerated() {
                let field = "devices[\(i)]"
                guard
                    let fields = reader.mapping(
                        node,
                        field,
                        allowed: ["token", "patient", "device"],
                        required: ["token", "patient", "device"]
                    ),
                    let token = fields.string("token"), let patient = fields.string("patient"),
                    let device = fields.string("device")
                else { continue }
                let key = "\(patient)/\(device)"
                if deviceCredentials.tokens[key] != nil {
                    reader.fail(node, field, "patient \(patient) device \(device) already has a token")
                    continue
                }
                deviceCredentials.tokens[key] = token
            }
            for (i, node) in (top.list("readers") ?? []).enumerated() {
                guard let fields = reader.mapping(node, "readers[\(i)]", allowed: ["token"], required: ["token"]),
                    let t = fields.string("token")
                else {
                    continue
                }
                deviceCredentials.readers.append(t)
            }
            for (i, node) in (top.list("admins") ?? []).enumerated() {
                guard let fields = reader.mapping(node, "admins[\(i)]", allowed: ["token"], required: ["token"]),
                    let t = fields.string("token")
                else {
                    continue
                }
                deviceCredentials.admins.append(t)
            }
            for (i, node) in (top.list("people") ?? []).enumerated() {
                if let person = person(node, "people[\(i)]", reader) { deviceCredentials.people.append(person) }
            }
            if deviceCredentials.tokens.isEmpty, deviceCredentials.readers.isEmpty, deviceCredentials.admins.isEmpty,
                deviceCredentials.people.isEmpty, reader.issues.isEmpty
            {
                reader.fail(root, "", "no credentials: list devices, readers, admins and/or people")
            }
        }
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return deviceCredentials
    }

    /// One `people:` entry (``PersonCredential/read(_:token:)``).
    static func person(_ node: Node, _ field: String, _ reader: YAMLReader) -> PersonCredential? {
        guard
            let fields = reader.mapping(
                node,
                field,
                allowed: PersonCredential.keys,
                required: PersonCredential.required
            ),
            let token = fields.string("token")
        else { return nil }
        return PersonCredential.read(fields, token: token)
    }
}
