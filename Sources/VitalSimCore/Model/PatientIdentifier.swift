/// What a patient id may be, in scenarios, on the wire and in the reference SUT's API alike
/// (`docs/openapi.yaml`, `PatientId`): 1 to ``maxLength`` characters, no `/` (it is a path segment
/// of the read-back and deletion routes, and the first part of reading ids `PATIENT/DEVICE/SEQ`) and
/// no control character. One rule everywhere, so that no id is accepted on ingestion and then
/// refused by the routes that read it back.
package enum PatientIdentifier {
    /// Longest patient id, in characters.
    package static let maxLength = 64

    /// What is wrong with `id` as a patient id, or nil when it is one.
    package static func problem(_ id: String) -> String? {
        let scalars = id.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= maxLength else {
            return "a patient id is 1 to \(maxLength) characters, got \(scalars.count)"
        }
        if id.contains("/") { return "a patient id must not contain '/' (reading ids are PATIENT/DEVICE/SEQ)" }
        if let bad = scalars.first(where: { $0.properties.generalCategory == .control }) {
            return
                "a patient id holds the control character U+\(String(bad.value, radix: 16, uppercase: true)); ids are printable text"
        }
        return nil
    }
}
