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
        if let top = reader.mapping(root, "", allowed: ["devices", "readers", "admins"]) {
            for (i, node) in (top.list("devices") ?? []).enumerated() {
                let field = "devices[\(i)]"
                guard
                    let f = reader.mapping(
                        node,
                        field,
                        allowed: ["token", "patient", "device"],
                        required: ["token", "patient", "device"]
                    ),
                    let token = f.string("token"), let patient = f.string("patient"), let device = f.string("device")
                else { continue }
                let key = "\(patient)/\(device)"
                if deviceCredentials.tokens[key] != nil {
                    reader.fail(node, field, "patient \(patient) device \(device) already has a token")
                    continue
                }
                deviceCredentials.tokens[key] = token
            }
            for (i, node) in (top.list("readers") ?? []).enumerated() {
                guard let f = reader.mapping(node, "readers[\(i)]", allowed: ["token"], required: ["token"]),
                    let t = f.string("token")
                else {
                    continue
                }
                deviceCredentials.readers.append(t)
            }
            for (i, node) in (top.list("admins") ?? []).enumerated() {
                guard let f = reader.mapping(node, "admins[\(i)]", allowed: ["token"], required: ["token"]),
                    let t = f.string("token")
                else {
                    continue
                }
                deviceCredentials.admins.append(t)
            }
            if deviceCredentials.tokens.isEmpty, deviceCredentials.readers.isEmpty, deviceCredentials.admins.isEmpty,
                reader.issues.isEmpty
            {
                reader.fail(root, "", "no credentials: list devices, readers and/or admins")
            }
        }
        guard reader.issues.isEmpty else { throw ScenarioLoadError(issues: reader.reportedIssues) }
        return deviceCredentials
    }
}
