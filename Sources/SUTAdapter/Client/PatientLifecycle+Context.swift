import Foundation
import Traffic
import VitalSimCore

extension PatientLifecycle {
    /// What a step's body template can use (docs/sut-profiles.md lists it): `run`, `scenario`,
    /// `patientId` (at the SUT), `scenarioPatientId`, `profile`, `devices` (each `deviceId`,
    /// `scenarioDeviceId`, `type`, `transport`, `last`), `devicesJSON`, `patientJSON` and
    /// `profileName` (the SUT's name of the profile, `lifecycle.profile-names`), `thresholds` (the
    /// patient's own limits, each `rule`, `signal`, `value`, `unit`, `last`) and `thresholdsJSON`
    /// (`{"hr.tachycardia":{"heart-rate":120}}`, `{}` for none), `careTeam` (each `person`, `role`,
    /// `last`) and `careTeamJSON` (`[{"person":"ann","role":"caregiver"}]`), `escalation` (each
    /// `severity`, `steps`: each `afterSeconds`, `notify`: each `person`, `last`) and
    /// `escalationJSON` (`{"high":[{"afterSeconds":0,"notify":["ann"]}]}`, `{}` for none), and
    /// `webhook` (the harness's webhook receiver URL, its key in it; empty without one).
    func context(_ patientSpec: PatientSpec) -> [String: Any] {
        let wirePatient = naming.patient(patientSpec.id)
        let devices: [[String: Any]] = patientSpec.devices.enumerated().map { i, d in
            [
                "deviceId": naming.device(d.id, of: patientSpec.id), "scenarioDeviceId": d.id, "type": d.type.rawValue,
                "transport": d.transport.rawValue, "last": i == patientSpec.devices.count - 1,
            ]
        }
        return [
            "run": run, "scenario": scenarioName, "patientId": naming.patient(patientSpec.id), "webhook": webhook ?? "",
            "scenarioPatientId": patientSpec.id,
            "profile": patientSpec.profile.rawValue,
            "profileName": lifecycle.profileNames[patientSpec.profile.rawValue] ?? patientSpec.profile.rawValue,
            "devices": devices, "devicesJSON": devicesJSON(patientSpec).serialized(),
            "patientJSON": patientJSON(patientSpec),
            "thresholds": patientSpec.thresholds.enumerated().map { i, t in
                [
                    "rule": t.rule, "signal": t.signal.rawValue, "value": JSONValue.format(t.value),
                    "unit": t.signal.ucum,
                    "last": i == patientSpec.thresholds.count - 1,
                ] as [String: Any]
            },
            "thresholdsJSON": ThresholdOverride.json(patientSpec.thresholds).serialized(),
            "careTeam": patientSpec.careTeam.enumerated().map { i, m in
                ["person": m.id, "role": m.role.rawValue, "last": i == patientSpec.careTeam.count - 1] as [String: Any]
            },
            "careTeamJSON": JSONValue.array(
                patientSpec.careTeam.map { .object([("person", .string($0.id)), ("role", .string($0.role.rawValue))]) }
            ).serialized(),
            "escalation": Self.escalationContext(patientSpec.escalation.renamed(patientSpec.id, as: wirePatient)),
            "escalationJSON": Self.escalationJSON(patientSpec.escalation.renamed(patientSpec.id, as: wirePatient))
                .serialized(),
        ]
    }

    /// An escalation policy as the reference contract's enrolment carries it: severity → steps of
    /// `{afterSeconds, notify}`, severities from low to high (the patient named by the id the SUT
    /// knows: ``EscalationPolicy/renamed(_:as:)``).
    static func escalationJSON(_ policy: EscalationPolicy) -> JSONValue {
        .object(
            policy.severities.map { severity in
                let steps = policy.steps(for: severity).map { step in
                    JSONValue.object([
                        ("afterSeconds", .int(step.after / 1000)), ("notify", .array(step.notify.map { .string($0) })),
                    ])
                }
                return (severity.rawValue, .array(steps))
            }
        )
    }

    /// The policy for Mustache sections: each severity with its steps, each step with its people.
    static func escalationContext(_ policy: EscalationPolicy) -> [[String: Any]] {
        let severities = policy.severities
        return severities.enumerated().map { i, severity in
            let steps = policy.steps(for: severity)
            return [
                "severity": severity.rawValue, "last": i == severities.count - 1,
                "steps": steps.enumerated().map { j, step in
                    [
                        "afterSeconds": step.after / 1000, "last": j == steps.count - 1,
                        "notify": step.notify.enumerated().map { k, person in
                            ["person": person, "last": k == step.notify.count - 1] as [String: Any]
                        },
                    ] as [String: Any]
                },
            ] as [String: Any]
        }
    }

    func devicesJSON(_ patientSpec: PatientSpec) -> JSONValue {
        .array(
            patientSpec.devices.map { d in
                .object([
                    ("deviceId", .string(naming.device(d.id, of: patientSpec.id))), ("type", .string(d.type.rawValue)),
                    ("transport", .string(d.transport.rawValue)),
                ])
            }
        )
    }

    /// `{"patientId", "scenarioPatientId", "profile", "run", "scenario", "devices": […], "thresholds": {…}}`:
    /// a command's standard input, and `{{patientJSON}}` in a template.
    func patientJSON(_ patientSpec: PatientSpec) -> String {
        JSONValue.object([
            ("patientId", .string(naming.patient(patientSpec.id))), ("scenarioPatientId", .string(patientSpec.id)),
            ("profile", .string(patientSpec.profile.rawValue)),
            ("run", .string(run)), ("scenario", .string(scenarioName)), ("devices", devicesJSON(patientSpec)),
            ("thresholds", ThresholdOverride.json(patientSpec.thresholds)),
        ]).serialized()
    }

    /// The environment of a command step: the harness's own, and `VITALSIM_RUN_ID`,
    /// `VITALSIM_SCENARIO`, `VITALSIM_PATIENT`, `VITALSIM_SCENARIO_PATIENT`, `VITALSIM_PROFILE`,
    /// `VITALSIM_BASE_URL`.
    func environment(_ patientSpec: PatientSpec) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["VITALSIM_RUN_ID"] = run
        env["VITALSIM_SCENARIO"] = scenarioName
        env["VITALSIM_PATIENT"] = naming.patient(patientSpec.id)
        env["VITALSIM_SCENARIO_PATIENT"] = patientSpec.id
        env["VITALSIM_PROFILE"] = patientSpec.profile.rawValue
        env["VITALSIM_BASE_URL"] = base
        return env
    }

    /// Runs a command step (through `/usr/bin/env`, so a bare name is looked up on PATH and `./x` in
    /// `directory`), `input` on its standard input; nil when it exits 0 within `timeout` seconds,
    /// else what went wrong with the end of its output.
    static func command(
        _ arguments: [String],
        directory: String,
        environment: [String: String],
        input: String,
        timeout: Double
    ) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: runBlocking(
                        arguments,
                        directory: directory,
                        environment: environment,
                        input: input,
                        timeout: timeout
                    )
                )
            }
        }
    }

    static func runBlocking(
        _ arguments: [String],
        directory: String,
        environment: [String: String],
        input: String,
        timeout: Double
    ) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.isEmpty ? "." : directory)
        process.environment = environment
        // Files rather than pipes: a command that exits without reading its input cannot raise SIGPIPE
        // in the harness, and one that writes a lot cannot block on a full pipe.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitalsim-lifecycle-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        )
        let output = scratch.appendingPathExtension("out")
        let inputFile = scratch.appendingPathExtension("json")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: inputFile)
        }
        guard FileManager.default.createFile(atPath: output.path, contents: nil),
            FileManager.default.createFile(atPath: inputFile.path, contents: Data(input.utf8)),
            let sink = try? FileHandle(forWritingTo: output), let source = try? FileHandle(forReadingFrom: inputFile)
        else {
            return "cannot create its input and output files in \(FileManager.default.temporaryDirectory.path)"
        }
        defer { try? source.close() }
        process.standardInput = source
        process.standardOutput = sink
        process.standardError = sink
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try process.run() } catch {
            return "cannot start \(arguments.joined(separator: " ")): \(error.localizedDescription)"
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            done.wait()
            return "did not finish within \(JSONValue.format(timeout)) s (timeout:), stopped"
        }
        try? sink.close()
        guard process.terminationStatus != 0 || process.terminationReason != .exit else { return nil }
        let text = (try? Data(contentsOf: output)).map { Array($0) } ?? []
        let how =
            process.terminationReason == .exit
            ? "exited \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
        return "\(arguments.joined(separator: " ")) \(how): \(RunHealth.excerpt(Array(text.suffix(600))))"
    }
}

extension EscalationPolicy {
    /// The policy with `person` (the patient's scenario id) named `name` (its id at the SUT).
    func renamed(_ person: String, as name: String) -> EscalationPolicy {
        guard person != name else { return self }
        var copy = self
        for (severity, steps) in steps {
            copy.steps[severity] = steps.map { step in
                var renamed = step
                renamed.notify = step.notify.map { $0 == person ? name : $0 }
                return renamed
            }
        }
        return copy
    }
}
