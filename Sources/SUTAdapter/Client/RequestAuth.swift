import Foundation
import RunRecord
import Transports

/// The credentials of a run's requests, as a profile's `auth:` says: static headers on every
/// request; an ingestion request with its device's credential or else the OAuth2 token; an alert
/// read with the reader credential or else the OAuth2 token.
package final class RequestAuth: Sendable {
    let auth: SUTProfile.Auth
    /// The OAuth2 session, when the profile has `auth.oauth2`.
    package let oauth: OAuth2Session?
    /// Where the SUT's answers to the run's requests are recorded (the reports' SUT contract).
    package let contract: ContractLog

    package init(_ auth: SUTProfile.Auth, base: String, client: any HTTPExchange, contract: ContractLog = ContractLog())
    {
        self.auth = auth
        self.contract = contract
        oauth = auth.oauth2.map { OAuth2Session($0, base: base, client: client, contract: contract) }
    }

    /// Static headers only (`--header`).
    package convenience init(headers: [String], client: any HTTPExchange) {
        var auth = SUTProfile.Auth()
        auth.headers = headers
        self.init(auth, base: "", client: client)
    }

    /// The credential headers of a request carrying `device`'s readings of `patient`, and the OAuth2
    /// token used (to invalidate after a 401). A device's token is looked up under its ids at the
    /// SUT (`wire`, a profile's lifecycle ids) first, then under the scenario's.
    package func ingestion(
        patient: String,
        device: String,
        wire: (patient: String, device: String)? = nil
    ) async -> Result<([String], token: String?), CredentialProblem> {
        if let devices = auth.devices {
            if let header = deviceHeader(patient: patient, device: device, wire: wire) {
                return .success((auth.headers + [header], nil))
            }
            if oauth == nil {
                return .failure(
                    CredentialProblem(
                        "\(devices.file) has no token for patient \(patient) device \(device) (auth.devices of the profile); add it, or configure auth.oauth2"
                    )
                )
            }
        }
        return await withBearer(auth.headers)
    }

    /// The device's own credential header (`auth.devices`), looked up under its ids at the SUT
    /// (`wire`) first, then under the scenario's; nil when the profile has none for it.
    package func deviceHeader(
        patient: String,
        device: String,
        wire: (patient: String, device: String)? = nil
    ) -> String? {
        guard let devices = auth.devices else { return nil }
        return wire.flatMap { devices.header(patient: $0.patient, device: $0.device) }
            ?? devices.header(patient: patient, device: device)
    }

    /// The device credential of an MQTT message as MQTT 5 user properties (`mqtt.device-credentials:
    /// user-properties`): the header's name in lower case and its value; nil when the profile has no
    /// credential for the device.
    package func deviceProperties(
        patient: String,
        device: String,
        wire: (patient: String, device: String)? = nil
    ) -> [(
        name: String, value: String
    )]? {
        guard let header = deviceHeader(patient: patient, device: device, wire: wire),
            let colon = header.firstIndex(of: ":")
        else {
            return nil
        }
        let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return [(header[..<colon].trimmingCharacters(in: .whitespaces).lowercased(), value)]
    }

    /// The credential headers of an alert read.
    package func reader() async -> Result<([String], token: String?), CredentialProblem> {
        if let headers = auth.readerHeaders { return .success((headers, nil)) }
        return await withBearer(auth.headers)
    }

    /// `GET url` with the reader credential (renewed once after a 401 when it is an OAuth2 token),
    /// every answer logged in the SUT contract under `role`; a problem when no credential can be had
    /// or no answer comes. The last answer is returned whatever its status.
    package func readerGet(
        _ client: any HTTPExchange,
        _ url: String,
        role: SUTContract.Role,
        patient: String? = nil,
        timeout: Double = 10
    ) async -> Result<HTTPReply, AlertList.Problem> {
        var renewed = false
        while true {
            let headers: [String]
            let token: String?
            switch await reader() {
            case .success(let held): (headers, token) = held
            case .failure(let problem):
                return .failure(AlertList.Problem(text: "credentials for GET \(url): \(problem.message)"))
            }
            let reply: HTTPReply
            do throws(HTTPTransportError) {
                reply = try await client.get(url, headers: headers, timeout: timeout)
            } catch {
                contract.unanswered(role, method: "GET", url: url, reason: error.reason, patient: patient)
                return .failure(
                    AlertList.Problem(text: "GET \(url) got no answer: \(error.reason)", atBound: error.atBound)
                )
            }
            contract.answered(role, method: "GET", url: url, status: reply.status, body: reply.body, patient: patient)
            guard reply.status == 401, !renewed, refused(token: token) else { return .success(reply) }
            renewed = true
        }
    }

    /// After a 401 answer to a request sent with `token`: true when a new token may help (once).
    package func refused(token: String?) -> Bool {
        guard let oauth, let token else { return false }
        oauth.invalidate(token)
        return true
    }

    func withBearer(_ headers: [String]) async -> Result<([String], token: String?), CredentialProblem> {
        guard let oauth else { return .success((headers, nil)) }
        switch await oauth.accessToken() {
        case .success(let token): return .success((headers + ["Authorization: Bearer \(token)"], token))
        case .failure(let problem): return .failure(problem)
        }
    }
}
