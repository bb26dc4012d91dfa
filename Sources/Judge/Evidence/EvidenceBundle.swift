import Crypto
import Foundation
import RunRecord
import Traffic
import VitalSimCore

/// An auditor's evidence bundle for one scenario of a live run (`vitalsim run --evidence DIR`):
///
/// - `scenario.yaml` and `golden.yaml`: the inputs, copied byte for byte, with the recordings its
///   devices trace (`trace:` files, at the same paths relative to `scenario.yaml`);
/// - `meta.json`: scenario, seed, tool version, traffic digest, target, sha256 of the inputs;
/// - `traffic.jsonl`: every request or MQTT message in send order (transport, path or topic, user
///   properties, due time, reading ids, body as text or base64) — deterministic, no wall clock;
/// - `outcomes.jsonl`: what the SUT answered to each (status, field, attempts, error) and the W3C
///   trace id it was sent with;
/// - `alerts.json`: the alerts observed; `verdict.json`: every check with its rule, finding and the
///   requirement ids it verifies (`meta.json`'s `requirementsCatalogue` names the catalogue's version);
/// - `MANIFEST.sha256.sig` (with a signing key): an Ed25519 signature of the manifest
///   (``EvidenceSignature``);
/// - `generated/`: the scenario's `readings.jsonl` and btsnoop captures of its BLE devices;
/// - `ble-live/` (runs with `--ble hci`): a btsnoop capture of each device's live HCI session;
/// - `MANIFEST.sha256`: sha256 of every file above (`sha256sum -c MANIFEST.sha256` checks it).
///
/// `vitalsim replay BUNDLE [--public-key PEM]` checks the signature against the given key, the
/// manifest, regenerates the traffic from the bundled scenario
/// and seed, and proves it byte-identical to `traffic.jsonl`.
package struct EvidenceBundle: Sendable {
    /// The bundle's folder.
    package let directory: String

    /// The bundle in `directory` (written by ``write(scenarioPath:scenario:goldenPath:seed:target:plan:digest:result:verdict:profile:catalogue:signingKey:)``).
    package init(directory: String) { self.directory = directory }

    /// The tool version written into bundles.
    package static let toolVersion = VitalSimVersion.current
    /// `meta.json`'s `ble` of a run whose BLE devices went over a real link (`--ble hci`).
    package static let bleLink = "hci"
    /// `meta.json`'s `trafficShape` of a run whose traffic took a SUT profile's shape (its routes,
    /// ids at the SUT or MQTT topic): `traffic.jsonl` is as sent; its digest is of the reference form.
    package static let profileShape = "sut-profile"

    /// Writes the bundle for one scenario into `directory` (created; must not exist or be empty).
    package func write(
        scenarioPath: String,
        scenario: Scenario,
        goldenPath: String,
        seed: UInt64,
        target: String,
        plan: [PlannedRequest],
        digest: String,
        result: RunObservation,
        verdict: Verdict,
        profile: String? = nil,
        catalogue: String? = nil,
        signingKey: EvidenceSignature.SigningKey? = nil
    ) throws(EvidenceError) {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let scenarioBytes = try Data(contentsOf: URL(fileURLWithPath: scenarioPath))
            let goldenBytes = try Data(contentsOf: URL(fileURLWithPath: goldenPath))
            try scenarioBytes.write(to: URL(fileURLWithPath: directory + "/scenario.yaml"))
            try goldenBytes.write(to: URL(fileURLWithPath: directory + "/golden.yaml"))
            try copyTraces(scenario)
            var members: [(String, JSONValue)] = [
                ("scenario", .string(scenario.name)), ("seed", .string(String(seed))),
                ("toolVersion", .string(Self.toolVersion)),
                ("trafficDigest", .string(digest)), ("target", .string(target)),
                ("scenarioSha256", .string(Self.sha256(Array(scenarioBytes)))),
                ("goldenSha256", .string(Self.sha256(Array(goldenBytes)))),
                ("requests", .int(Int64(plan.count))),
                ("readings", .int(Int64(plan.reduce(0) { $0 + $1.readings.count }))),
                ("passed", .bool(verdict.passed)),
            ]
            // A scenario not judged: why (its outcomes.jsonl and alerts.json are empty).
            if let error = verdict.error { members.append(("notJudged", .string(error))) }
            // The catalogue whose ids `verdict.json`'s checks name (docs/requirements.md).
            if let catalogue { members.append(("requirementsCatalogue", .string(catalogue))) }
            if let profile {
                members += [("trafficShape", .string(EvidenceBundle.profileShape)), ("profile", .string(profile))]
            }
            if let ble = result.traffic.ble {
                // Readings of these devices went over a BLE link (live captures in ble-live/), not in
                // traffic.jsonl.
                members += [
                    ("ble", .string(EvidenceBundle.bleLink)),
                    ("bleDevices", .array(ble.devices.map { .string($0) })),
                    ("bleReadingsSent", .int(Int64(ble.sent))),
                    ("bleReadingsNotSent", .int(Int64(ble.notSent))),
                ]
            }
            let meta = JSONValue.object(members)
            try Data((meta.pretty() + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/meta.json"))
            try Data(Self.trafficLog(plan).utf8).write(to: URL(fileURLWithPath: directory + "/traffic.jsonl"))
            var outcomes = ""
            for (i, o) in result.traffic.outcomes.enumerated() {
                var f: [(String, JSONValue)] = [
                    ("i", .int(Int64(i))), ("status", o.status.map { .int(Int64($0)) } ?? .null),
                    ("attempts", .int(Int64(o.attempts))),
                ]
                if let field = o.field { f.append(("field", .string(field))) }
                if let error = o.error { f.append(("error", .string(error))) }
                if let trace = result.traffic.trace, i < plan.count {
                    f.append(("traceId", .string(trace.traceID(of: plan[i]))))
                }
                outcomes += JSONValue.object(f).serialized() + "\n"
            }
            try Data(outcomes.utf8).write(to: URL(fileURLWithPath: directory + "/outcomes.jsonl"))
            let alerts = JSONValue.array(
                result.alerts.observed.map { a in
                    .object([
                        ("alertId", .string(a.alertID)), ("patientId", .string(a.patientID)), ("rule", .string(a.rule)),
                        ("severity", .string(a.severity)),
                        ("raisedAt", .string(CivilTime(unixMilliseconds: a.raisedAt).iso8601(fractional: true))),
                        ("evidence", .array(a.evidence.map { .string($0) })),
                        ("traceIds", .array((verdict.alertTraces[a.alertID] ?? []).map { .string($0) })),
                    ])
                }
            )
            try Data((alerts.pretty() + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/alerts.json"))
            try Data(RunReport([verdict]).json.utf8).write(to: URL(fileURLWithPath: directory + "/verdict.json"))
            _ = try CaptureGenerator(scenario: scenario, seed: seed).generate(into: directory + "/generated")
            let manifest = Array(try manifest().utf8)
            try Data(manifest).write(to: URL(fileURLWithPath: directory + "/MANIFEST.sha256"))
            if let signingKey { try EvidenceSignature.sign(manifest, key: signingKey, into: directory) }
        } catch {
            throw .unwritable("cannot write the evidence bundle \(directory): \(error)")
        }
    }

    /// One JSON line per request, in send order.
    package static func trafficLog(_ plan: [PlannedRequest]) -> String {
        var out = ""
        for (i, r) in plan.enumerated() { out += r.logLine(i).serialized() + "\n" }
        return out
    }

    /// The files of a bundle that are not listed in its manifest: the manifest and its signature.
    static let unlisted: Set<String> = ["MANIFEST.sha256", EvidenceSignature.file]

    /// `sha256sum` lines for every file under `directory` (sorted paths, the manifest and its
    /// signature excluded).
    func manifest() throws -> String {
        var lines: [String] = []
        for path in files() where !Self.unlisted.contains(path) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            lines.append("\(Self.sha256(Array(bytes)))  \(path)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Relative paths of the regular files under `directory`, sorted.
    func files() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var out: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDir), !isDir.boolValue {
                out.append(path)
            }
        }
        return out.sorted()
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// The outcome of `vitalsim replay`.
    package enum ReplayOutcome: Sendable, Equatable {
        /// The regenerated traffic is byte-identical (requests and readings counted).
        case identical(requests: Int, digest: String)
        /// It differs; the first differing line.
        case differs(line: Int, expected: String, regenerated: String)
        /// A bundle of a run through a SUT profile (not in the bundle, so its wire shape is not
        /// regenerated): the readings regenerated from scenario and seed have the recorded digest.
        case readingsIdentical(requests: Int, digest: String, profile: String)
        /// Such a bundle whose readings regenerate with another digest.
        case readingsDiffer(expected: String, regenerated: String)
    }

    /// Checks the signature (against `trusted` when given: an unsigned or altered bundle is then an
    /// error), the manifest, and regenerates the traffic from the bundled scenario and seed.
    package func replay(
        trusted: EvidenceSignature.PublicKey? = nil
    ) throws(EvidenceError) -> (outcome: ReplayOutcome, signature: EvidenceSignature.Status) {
        guard let manifestBytes = FileManager.default.contents(atPath: directory + "/MANIFEST.sha256"),
            let manifest = String(data: manifestBytes, encoding: .utf8)
        else {
            throw .invalid("\(directory) is not an evidence bundle: MANIFEST.sha256 is missing")
        }
        let signature = try EvidenceSignature.check(directory, manifest: Array(manifestBytes), trusted: trusted)
        return (try regenerate(manifest: manifest), signature)
    }

    /// Checks the manifest's hashes and regenerates the traffic.
    func regenerate(manifest: String) throws(EvidenceError) -> ReplayOutcome {
        var listed: Set<String> = []
        for (n, line) in manifest.split(separator: "\n").enumerated() {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[1].hasPrefix(" ") else {
                throw .invalid("\(directory)/MANIFEST.sha256:\(n + 1): not a sha256sum line")
            }
            let path = String(parts[1].dropFirst())
            listed.insert(path)
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)) else {
                throw .invalid("\(directory)/\(path) is listed in MANIFEST.sha256 but missing")
            }
            guard Self.sha256(Array(bytes)) == parts[0] else {
                throw .invalid(
                    "\(directory)/\(path) does not match its sha256 in MANIFEST.sha256: the bundle was altered"
                )
            }
        }
        let unlisted = files().filter { !Self.unlisted.contains($0) && !listed.contains($0) }
        if let first = unlisted.first { throw .invalid("\(directory)/\(first) is not in MANIFEST.sha256") }
        guard let metaData = FileManager.default.contents(atPath: directory + "/meta.json"),
            let meta = try? JSONSerialization.jsonObject(with: metaData) as? [String: Any],
            let seedText = meta["seed"] as? String, let seed = UInt64(seedText),
            let digest = meta["trafficDigest"] as? String
        else {
            throw .invalid("\(directory)/meta.json lacks seed or trafficDigest")
        }
        let scenario: Scenario
        do throws(ScenarioLoadError) {
            scenario = try TracedScenarioLoader.load(path: directory + "/scenario.yaml")
        } catch {
            throw .invalid(error.description)
        }
        if meta["trafficShape"] as? String == Self.profileShape {
            let regenerated = TrafficPlan.streamedDigest(for: scenario, seed: seed)
            let logged = ((try? String(contentsOfFile: directory + "/traffic.jsonl", encoding: .utf8)) ?? "").split(
                separator: "\n"
            ).count
            return regenerated == digest
                ? .readingsIdentical(requests: logged, digest: digest, profile: meta["profile"] as? String ?? "?")
                : .readingsDiffer(expected: digest, regenerated: regenerated)
        }
        // A run over a BLE link logged only its HTTP/MQTT requests; the digest covers the whole traffic.
        let bleLink = meta["ble"] as? String == EvidenceBundle.bleLink
        let plan = TrafficPlan.requests(for: scenario, seed: seed, bleLink: bleLink)
        let regenerated = Self.trafficLog(plan)
        let recorded = (try? String(contentsOfFile: directory + "/traffic.jsonl", encoding: .utf8)) ?? ""
        let whole = bleLink ? TrafficPlan.requests(for: scenario, seed: seed) : plan
        if regenerated == recorded && TrafficPlan.digest(whole) == digest {
            return .identical(requests: plan.count, digest: digest)
        }
        let recordedLines = recorded.split(separator: "\n", omittingEmptySubsequences: false)
        let regeneratedLines = regenerated.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference =
            (0..<min(recordedLines.count, regeneratedLines.count)).first { recordedLines[$0] != regeneratedLines[$0] }
            ?? min(recordedLines.count, regeneratedLines.count)
        return .differs(
            line: firstDifference + 1,
            expected: firstDifference < recordedLines.count
                ? String(recordedLines[firstDifference].prefix(300)) : "(end of file)",
            regenerated: firstDifference < regeneratedLines.count
                ? String(regeneratedLines[firstDifference].prefix(300)) : "(end of file)"
        )
    }
}

/// Why an evidence bundle could not be written or is not a valid one.
package enum EvidenceError: Error, Sendable, CustomStringConvertible {
    /// The bundle's folder or a file in it could not be written (an infrastructure failure).
    case unwritable(String)
    /// Not a bundle, an altered one, or one whose scenario does not load (an input error).
    case invalid(String)

    package var description: String {
        switch self {
        case let .unwritable(m): m
        case let .invalid(m): m
        }
    }
}

extension EvidenceBundle {
    /// Copies the recordings of traced devices beside `scenario.yaml`, at the paths it names them
    /// by, so that `vitalsim replay` regenerates their traffic; a trace named by an absolute path or
    /// one outside the scenario's folder cannot be bundled and is an error.
    func copyTraces(_ scenario: Scenario) throws {
        for device in scenario.patients.flatMap(\.devices) {
            guard let trace = device.trace else { continue }
            guard !trace.file.hasPrefix("/"), !trace.file.split(separator: "/").contains("..") else {
                throw EvidenceError.invalid(
                    "device \(device.id)'s trace \(trace.file) is outside the scenario's folder; an evidence bundle needs it beside the scenario"
                )
            }
            let target = directory + "/" + trace.file
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true
            )
            if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
            try FileManager.default.copyItem(atPath: trace.path, toPath: target)
        }
    }
}

extension PlannedRequest {
    /// The request as one line of a traffic log: its index, transport, topic and properties or
    /// path, due time, reading ids, and body (text, else base64). `wire` adds what only the wire
    /// form holds (`vitalsim generate --sut`'s `wire.jsonl`): the method, content type and header
    /// lines, and for a corruption sent on purpose its field, kind and refusal level; an evidence
    /// bundle's `traffic.jsonl` leaves them out, so that bundles written before still replay.
    package func logLine(_ index: Int, wire: Bool = false) -> JSONValue {
        var fields: [(String, JSONValue)] = [("i", .int(Int64(index))), ("transport", .string(transport))]
        if let topic {
            fields.append(("topic", .string(topic)))
            fields.append(("properties", .object(userProperties.map { ($0.name, .string($0.value)) })))
        } else {
            if wire { fields.append(("method", .string(method))) }
            fields.append(("path", .string(path)))
            if wire {
                fields.append(("contentType", .string(contentType)))
                fields.append(("headers", .array(headers.map { .string($0) })))
            }
        }
        fields.append(("sendAt", .int(sendAt)))
        fields.append(("readings", .array(readings.map { .string($0.id) })))
        if wire, let corrupt = expectedRejection {
            var what: [(String, JSONValue)] = [("field", .string(corrupt.wireField))]
            if let corruption = corrupt.corruption { what.append(("corruption", .string(corruption))) }
            if let level = corrupt.level { what.append(("level", .string(level.rawValue))) }
            fields.append(("corrupt", .object(what)))
        }
        if let text = String(validating: body, as: UTF8.self), !text.contains("\u{0}") {
            fields.append(("body", .string(text)))
        } else {
            fields.append(("bodyBase64", .string(Data(body).base64EncodedString())))
        }
        return .object(fields)
    }
}
