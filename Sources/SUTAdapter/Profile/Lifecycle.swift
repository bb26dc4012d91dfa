import Foundation
import Mustache
import Traffic
import VitalSimCore

/// What happens around each scenario at the SUT (`lifecycle:` of a SUT profile): the ids its
/// patients and devices get there, and the steps that enrol each patient before the scenario's
/// traffic and reset it after the scenario is judged.
package struct Lifecycle: Sendable {
    /// The patient id at the SUT (`patient-id:`), `{run}`, `{scenario}` and `{patient}` filled in;
    /// nil keeps the scenario's ids.
    package var patientID: String?
    /// The device id at the SUT (`device-id:`), `{run}`, `{scenario}`, `{patient}` and `{device}` filled in.
    package var deviceID: String?
    /// Steps per patient before the scenario (`enrol:`), in order.
    package var enrol: [LifecycleStep] = []
    /// Steps per patient after it (`reset:`), in order.
    package var reset: [LifecycleStep] = []
    /// `Name: value` headers of lifecycle requests (`headers:`); nil: those of alert reads.
    package var headers: [String]?
    /// The SUT's names of VitalSim's clinical profiles (`profile-names:`), `profileName` in templates.
    package var profileNames: [String: String] = [:]

    package init() {}

    /// True when the ids at the SUT carry the run id, so a run needs one.
    package var usesRunID: Bool {
        (patientID ?? "").contains("{run}") || (deviceID ?? "").contains("{run}")
            || (enrol + reset).contains { $0.mentionsRunID }
    }

    /// The ids `scenario`'s patients and devices get at the SUT in run `run`.
    package func naming(run: String, scenario: Scenario) throws(WireNamingError) -> WireNaming {
        try WireNaming(patientTemplate: patientID, deviceTemplate: deviceID, run: run, scenario: scenario)
    }

    /// True when a reset step deletes the patient: the deletion is then judged.
    package var resetDeletesPatients: Bool { reset.contains(where: \.deletes) }

    /// True when the profile changes nothing around a scenario.
    package var isEmpty: Bool { patientID == nil && deviceID == nil && enrol.isEmpty && reset.isEmpty }

    /// Why the enrolment cannot tell the SUT the patients' own limits `scenario` sets (`thresholds:`),
    /// or nil: it can when a step is a command (its standard input carries them) or a request body
    /// uses `thresholdsJSON` or `thresholds`. A profile without enrolment steps is not asked: the SUT
    /// was then set up another way (`vitalsim serve --scenario`).
    package func limitsProblem(_ scenario: Scenario) -> String? {
        guard let patient = scenario.patients.first(where: { !$0.thresholds.isEmpty }), !enrol.isEmpty else {
            return nil
        }
        let mark = "vitalsim-limits-sentinel"
        let probe: [String: Any] = [
            "thresholdsJSON": mark, "thresholds": [["rule": mark, "signal": mark, "value": mark, "last": true]],
        ]
        for step in enrol {
            if case .command = step.action { return nil }
            if let body = step.body(probe), String(decoding: body, as: UTF8.self).contains(mark) { return nil }
        }
        return
            "patient \(patient.id) has its own alert limits (thresholds:), but no lifecycle.enrol step passes them to the SUT: "
            + "put {{thresholdsJSON}} (or a {{#thresholds}} section) in an enrol body, or enrol with a command, which receives them on standard input"
    }
}

/// One enrolment or reset step: an HTTP request or a command, run once per patient.
package struct LifecycleStep: Sendable {
    /// What the step does.
    package enum Action: Sendable {
        /// An HTTP request on the SUT's base URL: `{patient}`, `{run}`, `{scenario}` in the path
        /// filled in, the body rendered from a Mustache template.
        case request(method: String, path: String, body: MustacheTemplate?, contentType: String)
        /// A program and its arguments (placeholders filled in), run in the profile's folder with the
        /// patient's JSON on standard input.
        case command(arguments: [String], directory: String)
    }

    package var action: Action
    /// The statuses that mean success (`expect:`); nil: any 2xx.
    package var expect: Set<Int>?
    /// Seconds the step may take (`timeout:`).
    package var timeout: Double = 30
    /// Where the step is written, for messages: `lifecycle.enrol[0]`.
    package var field: String
    /// Whether the step deletes the patient, so that what is left of them is judged after the reset
    /// (`deletes-patient:`). Nil: a `DELETE` whose path names `{patient}` (not a query) does, another
    /// request does not (deleting a Subscription, say), a command does.
    package var deletesPatient: Bool?

    /// ``deletesPatient`` as given, else as the step's action implies.
    package var deletes: Bool {
        if let deletesPatient { return deletesPatient }
        switch action {
        case let .request(method, path, _, _):
            return method == "DELETE" && path.contains("{patient}") && !path.contains("?")
        case .command: return true
        }
    }

    package init(action: Action, field: String) {
        self.action = action
        self.field = field
    }

    /// Whether a status means the step succeeded.
    package func succeeded(status: Int) -> Bool { expect?.contains(status) ?? (200..<300).contains(status) }

    /// The step in a few words: `PUT /patients/{patient}`, `command ./enrol.sh`.
    package var summary: String {
        switch action {
        case let .request(method, path, _, _): "\(method) \(path)"
        case let .command(arguments, _): "command " + arguments.joined(separator: " ")
        }
    }

    var mentionsRunID: Bool {
        switch action {
        case let .request(_, path, _, _): path.contains("{run}")
        case let .command(arguments, _): arguments.contains { $0.contains("{run}") }
        }
    }

    /// The rendered body of a request step with `context` (nil without a body).
    package func body(_ context: [String: Any]) -> [UInt8]? {
        guard case let .request(_, _, template?, _) = action else { return nil }
        return Array(template.render(context).utf8)
    }

    /// `text` with `{run}`, `{scenario}`, `{patient}` (the patient's id at the SUT) filled in.
    package static func fill(_ text: String, run: String, scenario: String, patient: String) -> String {
        text.replacingOccurrences(of: "{run}", with: run)
            .replacingOccurrences(of: "{scenario}", with: scenario)
            .replacingOccurrences(of: "{patient}", with: patient)
    }
}
