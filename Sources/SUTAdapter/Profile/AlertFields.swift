import Foundation
import RunRecord
import VitalSimCore

/// Why an item of an alert list cannot be read as an alert.
package struct UnreadableAlert: Error, Sendable {
    package let reason: String

    package init(reason: String) { self.reason = reason }
}

/// Where each field of an alert is (`alerts.fields:`), as JSON Pointers into one item of the list,
/// each with small transforms.
package struct AlertFields: Sendable, Equatable {
    package var id: FieldSpec
    package var patient: FieldSpec
    package var rule: FieldSpec
    package var severity: FieldSpec
    package var raisedAt: FieldSpec
    /// The readings an alert cites; nil when the SUT does not expose them (evidence is not checked).
    package var evidence: FieldSpec?
    /// How `raisedAt` is written.
    package var timeFormat = TimeFormat.rfc3339

    package init(
        id: FieldSpec,
        patient: FieldSpec,
        rule: FieldSpec,
        severity: FieldSpec,
        raisedAt: FieldSpec,
        evidence: FieldSpec?
    ) {
        self.id = id
        self.patient = patient
        self.rule = rule
        self.severity = severity
        self.raisedAt = raisedAt
        self.evidence = evidence
    }

    /// `{alertId, patientId, rule, severity, raisedAt, evidence}`.
    package static let vitalsim = AlertFields(
        id: FieldSpec(JSONPointer(tokens: ["alertId"])),
        patient: FieldSpec(JSONPointer(tokens: ["patientId"])),
        rule: FieldSpec(JSONPointer(tokens: ["rule"])),
        severity: FieldSpec(JSONPointer(tokens: ["severity"])),
        raisedAt: FieldSpec(JSONPointer(tokens: ["raisedAt"])),
        evidence: FieldSpec(JSONPointer(tokens: ["evidence"]))
    )

    /// How a time stamp is written (`time-format:`).
    package enum TimeFormat: String, Sendable, CaseIterable {
        /// RFC 3339 text (`2026-03-02T08:00:00Z`, offsets and fractions allowed).
        case rfc3339
        /// Milliseconds since the Unix epoch (a number).
        case unixMilliseconds = "unix-ms"
        /// Seconds since the Unix epoch (a number, fractions allowed).
        case unixSeconds = "unix-s"
    }

    /// Reads one item of the alert list with `mapping` applied to its rule and severity names: an
    /// alert (with ``ObservedAlert/unmapped`` set when a name has no mapping), or why it cannot be read.
    package func read(_ item: Any, mapping: SUTProfile.NameMapping) -> Result<ObservedAlert, UnreadableAlert> {
        var text: [String] = []
        for (name, spec) in [("alertId", id), ("patientId", patient), ("rule", rule), ("severity", severity)] {
            switch spec.text(in: item, name: name) {
            case .success(let field): text.append(field)
            case .failure(let problem): return .failure(problem)
            }
        }
        let raised: Int64
        switch time(item) {
        case .success(let stamp): raised = stamp
        case .failure(let problem): return .failure(problem)
        }
        var cited: [String] = []
        if let evidence {
            switch evidence.texts(in: item, name: "evidence") {
            case .success(let ids): cited = ids
            case .failure(let problem): return .failure(problem)
            }
        }
        var alert = ObservedAlert(
            alertID: text[0],
            patientID: text[1],
            rule: text[2],
            severity: text[3],
            raisedAt: raised,
            evidence: cited
        )
        var unmapped: [String] = []
        if mapping.rules != nil || !mapping.rulesByProfile.isEmpty {
            if let mapped = mapping.rule(alert.rule, patient: alert.patientID) {
                alert.rule = mapped
            } else {
                unmapped.append("rule '\(alert.rule)'")
            }
        }
        if let severities = mapping.severities {
            if let mapped = severities[alert.severity] {
                alert.severity = mapped
            } else {
                unmapped.append("severity '\(alert.severity)'")
                alert.unmappedSeverity = alert.severity
            }
        }
        if !unmapped.isEmpty { alert.unmapped = unmapped.joined(separator: " and ") }
        return .success(alert)
    }

    /// `raisedAt` as Unix ms.
    func time(_ item: Any) -> Result<Int64, UnreadableAlert> {
        raisedAt.time(in: item, name: "raisedAt", format: timeFormat)
    }
}

extension FieldSpec {
    /// The time stamp the pointer selects, as Unix ms, written as `format` says.
    func time(in item: Any, name: String, format: AlertFields.TimeFormat) -> Result<Int64, UnreadableAlert> {
        let where_ = location(name: name)
        guard let value = pointer.value(in: item), !(value is NSNull) else {
            return .failure(UnreadableAlert(reason: "it has no \(where_)"))
        }
        switch format {
        case .rfc3339:
            guard case .success(let stamp) = text(in: item, name: name),
                let ms = CivilTime.unixMilliseconds(rfc3339: stamp)
            else {
                return .failure(
                    UnreadableAlert(reason: "its \(where_) '\(FieldSpec.show(value))' is not an RFC 3339 time stamp")
                )
            }
            return .success(ms)
        case .unixMilliseconds, .unixSeconds:
            guard let number = value as? NSNumber, !(value is String), number.doubleValue.isFinite else {
                return .failure(
                    UnreadableAlert(
                        reason: "its \(where_) '\(FieldSpec.show(value))' is not a number (\(format.rawValue))"
                    )
                )
            }
            let ms = format == .unixSeconds ? number.doubleValue * 1000 : number.doubleValue
            guard abs(ms) < 1e15 else {
                return .failure(UnreadableAlert(reason: "its \(where_) \(number) is out of range"))
            }
            return .success(Int64(ms.rounded()))
        }
    }
}
