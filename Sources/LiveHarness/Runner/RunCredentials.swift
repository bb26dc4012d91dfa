import Foundation
import Judge
import RunRecord
import SUTAdapter
import Traffic
import Transports
import VitalSimCore

/// The credentials a run against the embedded reference SUT makes up, so that the SUT runs as it
/// would be deployed, with every request authenticated: a token per device of the scenario (by its
/// ids at the SUT), a reader token and an admin token for `serve --credentials`, and passwords for
/// the SUT's and the harness's users of the embedded broker (``BrokerAccess``).
///
/// The tokens come from the system's random generator: they never shape the traffic (the plan, its
/// digest and the evidence hold none of them) and must not be guessable.
package struct RunCredentials {
    /// A device's token, by the device's ids at the SUT.
    struct Device {
        let patient: String
        let device: String
        let token: String
    }

    let devices: [Device]
    /// A token per person of the scenario's care teams and per patient with a care team, then an
    /// expired and a revoked one of the first care-team member (as the harness names them: a
    /// patient by their scenario id).
    let people: [PersonCredential]
    /// The ids patients have at the SUT, for the SUT's own file (a patient's person id is theirs).
    let wirePatients: [String: String]
    let reader: String
    let admin: String
    let sutPassword: String
    let harnessPassword: String

    /// The broker users of the SUT and of the harness.
    static let sutUser = "vitalsim-sut"
    static let harnessUser = "vitalsim-harness"

    package init(scenario: Scenario, naming: WireNaming) {
        var devices: [Device] = []
        for patient in scenario.patients {
            for device in patient.devices {
                devices.append(
                    Device(
                        patient: naming.patient(patient.id),
                        device: naming.device(device.id, of: patient.id),
                        token: RunCredentials.token()
                    )
                )
            }
        }
        self.devices = devices
        var people = AccessProbe.people(of: scenario).map {
            PersonCredential(token: RunCredentials.token(), id: $0.person, role: $0.role)
        }
        if let first = people.first, first.role != .patient {
            var expired = PersonCredential(token: RunCredentials.token(), id: first.id, role: first.role)
            expired.expiresAt = 946_684_800_000  // 2000-01-01T00:00:00Z
            people.append(expired)
            people.append(
                PersonCredential(token: RunCredentials.token(), id: first.id, role: first.role, revoked: true)
            )
        }
        self.people = people
        wirePatients = Dictionary(uniqueKeysWithValues: scenario.patients.map { ($0.id, naming.patient($0.id)) })
        reader = RunCredentials.token()
        admin = RunCredentials.token()
        sutPassword = RunCredentials.token()
        harnessPassword = RunCredentials.token()
    }

    /// 128 random bits as 32 hex digits.
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next(), radix: 16).leftPadded(to: 16) }.joined()
    }

    /// The reference SUT's `--credentials` file (YAML).
    package var fileText: String {
        var text = "devices:\n"
        for d in devices {
            text += "  - token: \"\(d.token)\"\n    patient: \(JSONValue.string(d.patient).serialized())\n"
            text += "    device: \(JSONValue.string(d.device).serialized())\n"
        }
        text += "readers:\n  - token: \"\(reader)\"\nadmins:\n  - token: \"\(admin)\"\n"
        if !people.isEmpty { text += "people:\n" }
        for p in people { text += p.yaml(person: p.role == .patient ? wirePatients[p.id] : nil) }
        return text
    }

    /// The reference SUT's `--credentials` file (YAML), written at `path`.
    func write(to path: String) throws(HarnessError) {
        let text = fileText
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else {
            throw .infrastructure("cannot write the embedded SUT's credentials to \(path)")
        }
    }

    /// The tokens as a profile's `auth.devices` (bearer tokens; the reader and admin tokens with them).
    package func deviceCredentials(file: String) -> DeviceCredentials {
        var tokens: [String: String] = [:]
        for device in devices { tokens["\(device.patient)/\(device.device)"] = device.token }
        var credentials = DeviceCredentials(
            file: file,
            header: "Authorization: Bearer {token}",
            tokens: tokens,
            readers: [reader]
        )
        credentials.admins = [admin]
        credentials.people = people
        return credentials
    }

    /// The harness's broker credentials.
    var harness: MQTTCredentials { MQTTCredentials(username: RunCredentials.harnessUser, password: harnessPassword) }

    /// The embedded broker's users: the SUT reads the readings' topics (`topics`) and writes
    /// `acks/#`, `errors/#` and `alerts/#`; the harness publishes and reads everything, `$SYS`
    /// counters included; each device (whose ids can name a broker user and a topic level) publishes
    /// only on its own topics and reads only its patient's confirmations, refusals and alerts.
    func brokerAccess(topics: [MQTTTopicTemplate]) -> BrokerAccess {
        var users = [
            BrokerAccess.User(
                name: RunCredentials.sutUser,
                password: sutPassword,
                rules: topics.map { "topic read \($0.filter)" }
                    + ["acks/#", "errors/#", "alerts/#"].map { "topic write \($0)" }
            ),
            BrokerAccess.User(
                name: RunCredentials.harnessUser,
                password: harnessPassword,
                rules: ["topic readwrite #", "topic read $SYS/#"]
            ),
        ]
        for d in devices where BrokerAccess.usable(d.patient) && BrokerAccess.usable(d.device) {
            let own = topics.map { "topic write \($0.topic(patient: d.patient, device: d.device, kind: "+"))" }
            let answers = ["acks", "errors", "alerts"].map { "topic read \($0)/\(d.patient)" }
            users.append(BrokerAccess.User(name: "\(d.patient)/\(d.device)", password: d.token, rules: own + answers))
        }
        return BrokerAccess(users: users)
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
