import VitalSimCore

extension FHIRObservation {
    /// The SNOMED CT system.
    static let snomed = "http://snomed.info/sct"

    /// A symptom report's symptom and severity (1 mild, 2 moderate, 3 severe): `code` a SNOMED CT
    /// finding VitalSim knows (``SymptomKind/snomed``), `valueCodeableConcept` a SNOMED CT severity
    /// (255604002 mild, 6736007 moderate, 24484000 severe); nil when `code` names no such symptom.
    static func symptom(_ o: [String: JSONInput]) throws(ValidationFailure) -> (SymptomKind, Double)? {
        guard case let .array(codings)? = member(o["code"], "coding") else { return nil }
        let kind = codings.lazy.compactMap { c -> SymptomKind? in
            guard member(c, "system") == .string(snomed), case let .string(code)? = member(c, "code") else {
                return nil
            }
            return SymptomKind.allCases.first { $0.snomed.code == code }
        }.first
        guard let kind else { return nil }
        let valid = "SNOMED CT 255604002 (mild), 6736007 (moderate) or 24484000 (severe)"
        guard let value = o["valueCodeableConcept"] else {
            throw ValidationFailure(
                field: "valueCodeableConcept",
                message: "a symptom needs its severity as valueCodeableConcept: \(valid)"
            )
        }
        guard case let .array(severities)? = member(value, "coding") else {
            throw ValidationFailure(
                field: "valueCodeableConcept.coding",
                message: "valueCodeableConcept.coding must be an array of codings"
            )
        }
        for c in severities where member(c, "system") == .string(snomed) {
            guard case let .string(code)? = member(c, "code") else { continue }
            if let severity = SymptomSeverity.allCases.first(where: { $0.snomed.code == code }) {
                return (kind, Double(severity.rawValue))
            }
        }
        throw ValidationFailure(
            field: "valueCodeableConcept.coding",
            message: "the symptom's severity must be \(valid)"
        )
    }
}
