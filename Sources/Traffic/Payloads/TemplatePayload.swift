import Mustache
import VitalSimCore

/// A payload written by the user as a Mustache template (the `template` format of SUT profiles),
/// rendered once per reading without HTML escaping. The keys a template can use are listed in
/// docs/sut-profiles.md: `readingId`, `patientId`, `deviceId`, `deviceType`, `kind`, `value`,
/// `systolic`, `diastolic`, `unit`, `loinc`, `timestamp`, `unixMs`, `sequence`, `rrIntervals`
/// (a list, ms), `rrIntervalsJSON` and `method` (a feed's: `bottle` or `breast`).
package struct TemplatePayload: Sendable {
    let template: MustacheTemplate
    /// Parses `source`; the error names the line and column.
    package init(source: String) throws(TemplatePayloadError) {
        do {
            template = try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}" + source)
        } catch let error as MustacheTemplate.ParserError {
            throw TemplatePayloadError(
                line: error.context.lineNumber,
                column: error.context.columnNumber,
                message: "\(error.error)"
            )
        } catch {
            throw TemplatePayloadError(line: 1, column: 1, message: "\(error)")
        }
    }

    /// The body of reading `r` (nil for a kind with no value to render: cuff pressure), corrupted
    /// as `r.delivery` asks, and the rejection expected then (its field as the template's context
    /// names it; the route adds the names its profile gives).
    package func render(_ reading: Reading, start: Int64) -> ([UInt8], ExpectedRejection?)? {
        guard reading.kind != .cuffPressure else { return nil }
        var context = TemplatePayload.context(reading, start: start)
        guard let corruption = reading.delivery.corruption else { return (Array(template.render(context).utf8), nil) }
        func rejection(_ field: String) -> ExpectedRejection {
            ExpectedRejection(status: 400, field: field, spellings: [field])
        }
        let measurement = context["systolic"] != nil ? "systolic" : "value"
        switch corruption {
        case .outOfRange, .badCRC, .wrongType:
            let bad = corruption == .wrongType ? "\"\(context[measurement] as? String ?? "")\"" : "-1"
            context[measurement] = bad
            if measurement == "systolic" { context["value"] = bad }
            return (Array(template.render(context).utf8), rejection(measurement))
        case .badTimestamp, .futureTimestamp:
            let ts = context["timestamp"] as? String ?? ""
            guard
                let changed = corruption == .badTimestamp
                    ? JSONCorruption.malformed(ts) : JSONCorruption.centuryAhead(ts)
            else { break }
            context["timestamp"] = changed
            return (Array(template.render(context).utf8), rejection("timestamp"))
        case .badFlags:
            context["unit"] = "bogus-unit"
            return (Array(template.render(context).utf8), rejection("unit"))
        case .truncation, .missingField, .unknownField, .mixed, .badUserID, .badCalories:
            break
        }
        // A form a template cannot express (a missing or unknown field): the body cut in half, and
        // whichever field the refusal names is accepted.
        let text = Array(template.render(context).utf8)
        let field =
            corruption == .truncation ? "" : (corruption == .unknownField ? JSONCorruption.unknownKey : measurement)
        return (
            Array(text.prefix(text.count / 2)),
            ExpectedRejection(status: 400, field: field, spellings: corruption == .truncation ? [] : ["*"])
        )
    }

    /// The values a template can use, as text (numbers in JSON form).
    static func context(_ reading: Reading, start: Int64) -> [String: Any] {
        var context: [String: Any] = [
            "readingId": reading.id, "patientId": reading.patientID, "deviceId": reading.deviceID,
            "deviceType": reading.deviceType.rawValue,
            "kind": reading.kind.rawValue, "unit": reading.measurement.unit,
            "timestamp": CivilTime(unixMilliseconds: start + reading.deviceTime).iso8601(fractional: true),
            "unixMs": String(start + reading.deviceTime), "sequence": String(reading.seq),
            "value": JSONValue.format(reading.measurement.primaryValue),
        ]
        if let loinc = FHIRObservationJSON.codes[reading.kind]?.code { context["loinc"] = loinc }
        if let method = reading.measurement.feedingMethod { context["method"] = method.rawValue }
        if case let .symptom(kind, severity) = reading.measurement {
            context["symptom"] = kind.rawValue
            context["severity"] = severity.name
            context["snomed"] = kind.snomed.code
            context["healthKitType"] = kind.healthKitType
        }
        if case let .equipment(item, _, action) = reading.measurement {
            context["item"] = item.rawValue
            context["action"] = action.rawValue
        }
        if case let .ecg(recording) = reading.measurement {
            context["classification"] = recording.classification.rawValue
            context["samplingFrequency"] = String(recording.samplingFrequency)
            context["symptomsStatus"] = recording.symptomatic ? "present" : "none"
            context["voltagesJSON"] = "[" + recording.microvolts.map { String($0) }.joined(separator: ",") + "]"
        }
        switch reading.measurement {
        case let .bloodPressure(s, d, _, _, _):
            context["systolic"] = String(s)
            context["diastolic"] = String(d)
        case let .heartRate(bpm, rr, _, _):
            context["value"] = String(bpm)
            let ms = rr.map { JSONValue.format(ObservationJSON.milliseconds($0)) }
            context["rrIntervals"] = ms
            context["rrIntervalsJSON"] = "[" + ms.joined(separator: ",") + "]"
        default:
            break
        }
        return context
    }
}

/// A template that does not parse.
package struct TemplatePayloadError: Error, Sendable {
    package var line: Int
    package var column: Int
    package var message: String
}
