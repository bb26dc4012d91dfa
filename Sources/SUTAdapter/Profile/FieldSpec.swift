import Foundation

/// Where one field of an alert is: a JSON Pointer into the alert's JSON, and the small transforms
/// applied to the text found there, in order: ``stripPrefix`` (e.g. `Patient/` of a FHIR
/// reference), then ``values`` (e.g. `HIGH` → `high`). Strings are taken as they are, numbers as
/// their decimal text (an integer id `17` reads as `"17"`).
package struct FieldSpec: Sendable, Equatable {
    package var pointer: JSONPointer
    /// Removed from the start of the text when present (`strip-prefix:`).
    package var stripPrefix: String?
    /// Text → replacement (`map:`); text not listed is kept.
    package var values: [String: String]?

    package init(_ pointer: JSONPointer, stripPrefix: String? = nil, values: [String: String]? = nil) {
        self.pointer = pointer
        self.stripPrefix = stripPrefix
        self.values = values
    }

    /// The field's name for messages: `raisedAt`, or `raisedAt (at /created_at)` when the pointer
    /// is not simply `/raisedAt`.
    func location(name: String) -> String {
        pointer.description == "/" + name ? name : "\(name) (at \(pointer))"
    }

    /// The one text the pointer selects, transformed.
    func text(in item: Any, name: String) -> Result<String, UnreadableAlert> {
        let found: Any?
        if pointer.selectsMany {
            let all = pointer.values(in: item)
            guard all.count <= 1 else {
                return .failure(
                    UnreadableAlert(
                        reason: "its \(location(name: name)) selects \(all.count) values; it must select one"
                    )
                )
            }
            found = all.first
        } else {
            found = pointer.walk(item)
        }
        guard let value = found, !(value is NSNull) else {
            return .failure(UnreadableAlert(reason: "it has no \(location(name: name))"))
        }
        guard let raw = FieldSpec.scalarText(value), !raw.isEmpty else {
            return .failure(UnreadableAlert(reason: "its \(location(name: name)) is not a non-empty string or number"))
        }
        return .success(transform(raw))
    }

    /// The texts the pointer selects (an array of strings, or a `*` pointer's values), transformed;
    /// nothing selected is an empty list.
    func texts(in item: Any, name: String) -> Result<[String], UnreadableAlert> {
        let found: [Any]
        if pointer.selectsMany {
            found = pointer.values(in: item)
        } else {
            guard let one = pointer.walk(item), !(one is NSNull) else { return .success([]) }
            guard let array = one as? [Any] else {
                return .failure(UnreadableAlert(reason: "its \(location(name: name)) is not an array of reading ids"))
            }
            found = array
        }
        var out: [String] = []
        for value in found {
            guard let text = FieldSpec.scalarText(value), !text.isEmpty else {
                return .failure(UnreadableAlert(reason: "its \(location(name: name)) is not an array of reading ids"))
            }
            out.append(transform(text))
        }
        return .success(out)
    }

    func transform(_ raw: String) -> String {
        var text = raw
        if let prefix = stripPrefix, text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        if let mapped = values?[text] { text = mapped }
        return text
    }

    /// A string, or a number's decimal text; nil for anything else (objects, arrays, booleans, null).
    static func scalarText(_ value: Any) -> String? {
        if let text = value as? String { return text }
        guard let number = value as? NSNumber, !isBoolean(number) else { return nil }
        let double = number.doubleValue
        if double == double.rounded(), abs(double) < 9e15 { return String(Int64(double)) }
        return number.stringValue
    }

    /// True for a JSON `true`/`false` (Foundation parses both into NSNumber).
    static func isBoolean(_ nsNumber: NSNumber) -> Bool {
        String(cString: nsNumber.objCType) == "c"
    }

    /// A short rendering of a value for messages.
    static func show(_ value: Any) -> String {
        if let text = scalarText(value) { return text.count > 60 ? String(text.prefix(60)) + "…" : text }
        if value is [Any] { return "an array" }
        if value is [String: Any] { return "an object" }
        return "\(value)"
    }
}
