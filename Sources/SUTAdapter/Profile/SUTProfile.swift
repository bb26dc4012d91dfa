import Foundation
import RunRecord
import Traffic
import VitalSimCore

/// How VitalSim reaches, authenticates to and reads a system under test: a SUT profile
/// (`vitalsim run --sut FILE`, documented key by key in `docs/sut-profiles.md`). The built-in
/// ``vitalsim`` profile is the reference SUT's own contract, what a run without `--sut` uses.
package struct SUTProfile: Sendable {
    /// The profile's name (`name:`), shown in reports.
    package var name: String
    /// The file it was loaded from (empty for the built-in profile).
    package var file = ""
    /// The SUT's base URL (`base-url:`); `--target` overrides it, and without either the embedded
    /// reference SUT is started.
    package var baseURL: String?
    /// TLS towards the SUT.
    package var tls = TLS()
    /// Credentials.
    package var auth = Auth()
    /// Where alerts are read and how their fields map to VitalSim's.
    package var alerts = AlertSource.vitalsim
    /// The SUT's rule and severity names → VitalSim's.
    package var mapping = NameMapping()
    /// How readings are sent (`ingestion:`): routes, and where a refusal names the rejected field.
    package var ingestion = Ingestion()
    /// The ids patients and devices get at the SUT, and the steps enrolling and resetting each patient.
    package var lifecycle = Lifecycle()
    /// How the harness's MQTT clients authenticate to the broker, and the topic readings go to (`mqtt:`).
    package var mqtt = MQTTSettings()
    /// Where the SUT's stored readings are read back after a run (`stored-readings:`); nil: they
    /// are not checked.
    package var storedReadings: StoredReadingsSource?
    /// What the SUT claims to implement (`conformance:`); checks of the rest are not-applicable.
    package var conformance = ConformanceStatement()
    /// Who was notified of each alert, and how the care team acts on alerts (`care-team:`); nil:
    /// neither is read nor sent.
    package var careTeam: CareTeamSource?
    /// Where the SUT's audit trail is read back (`audit:`); nil: it is not checked.
    package var audit: AuditSource?

    /// A profile named `name` with the reference SUT's contract for everything not set.
    package init(name: String) { self.name = name }

    /// The reference SUT's contract: `GET /api/v1/alerts` answering a JSON array of
    /// `{alertId, patientId, rule, severity, raisedAt, evidence}` with VitalSim's rule ids and severities.
    /// Its stored readings are read back (`GET /api/v1/patients/{patient}/readings`).
    package static let vitalsim: SUTProfile = {
        var profile = SUTProfile(name: "vitalsim")
        profile.storedReadings = .vitalsim
        profile.careTeam = .vitalsim
        profile.audit = .vitalsim
        return profile
    }()

    /// TLS settings (`tls:`).
    package struct TLS: Sendable, Equatable {
        /// PEM bundle of the CA that signed the SUT's certificate (`ca:`).
        package var caFile: String?
        /// Skip certificate verification (`insecure: true`), only when asked.
        package var insecure = false
        /// PEM client certificate and key for mutual TLS (`client-certificate:`, `client-key:`).
        package var clientCertificate: String?
        package var clientKey: String?

        package init(caFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    /// Credentials (`auth:`). An ingestion request carries ``headers`` and its device's credential
    /// (``devices``), or else the OAuth2 access token; an alert read carries ``headers`` and the
    /// reader credential (``reader``, else the device file's reader token), or else the OAuth2 token.
    package struct Auth: Sendable {
        /// `Name: value` headers on every request (`headers:`), environment variables expanded.
        package var headers: [String] = []
        /// `Name: value` headers of alert reads (`reader:`), environment variables expanded.
        package var reader: [String] = []
        /// Per-device credentials (`devices:`).
        package var devices: DeviceCredentials?
        /// OAuth2 client credentials (`oauth2:`).
        package var oauth2: OAuth2?

        package init() {}

        /// The headers of an alert read when they need no token request: ``headers`` and the reader
        /// credential (``reader``, else the device file's first reader token); nil when the OAuth2
        /// token must be added instead.
        package var readerHeaders: [String]? {
            if !reader.isEmpty { return headers + reader }
            if let devices, let first = devices.readers.first { return headers + [devices.header(for: first)] }
            return oauth2 == nil ? headers : nil
        }
    }

    /// How readings reach the SUT (`ingestion:`).
    package struct Ingestion: Sendable {
        /// The routes of HTTP readings; empty for the reference contract.
        package var routes = IngestionRoutes.vitalsim
        /// Where a 4xx body names the rejected field (`rejection-field:`); nil: `/field`, else a FHIR
        /// OperationOutcome's first `issue[].expression`.
        package var rejectionField: JSONPointer?
        /// The statuses with which the SUT refuses an invalid reading (`rejection-status:`), judged
        /// as the golden files' 400; default 400 only.
        package var rejectionStatuses: Set<Int> = [400]
        /// Seconds one ingestion request may take before it is retried (`timeout:`, default 10).
        package var timeout: Double = 10

        package init() {}
    }

    /// The SUT's rule and severity names → VitalSim's rule ids and severities (`rules:`,
    /// `severities:`). Without a table, the SUT's names are taken as VitalSim's own; with one, a name
    /// missing from it makes the alert `unmapped`, a finding of its own.
    package struct NameMapping: Sendable, Equatable {
        package var rules: [String: String]?
        package var severities: [String: String]?
        /// SUT rule names that stand for a different VitalSim rule by the patient's clinical
        /// profile (`rules: {LOW_SPO2: {copd: spo2.below-copd-target, default: spo2.low}}`):
        /// name → profile (or `default`) → rule id.
        package var rulesByProfile: [String: [String: String]] = [:]
        /// Each patient's clinical profile by the patient's id at the SUT, set per scenario (for
        /// ``rulesByProfile``).
        package var patientProfiles: [String: String] = [:]

        /// The VitalSim rule of the SUT's `name` for the patient with wire id `patient`; nil when
        /// the profile maps no such name (for that patient's profile, without a `default`).
        package func rule(_ name: String, patient: String) -> String? {
            if let rule = rules?[name] { return rule }
            guard let byProfile = rulesByProfile[name] else { return nil }
            return patientProfiles[patient].flatMap { byProfile[$0] } ?? byProfile["default"]
        }

        package init(rules: [String: String]? = nil, severities: [String: String]? = nil) {
            self.rules = rules
            self.severities = severities
        }
    }
}

/// OAuth2 client credentials (RFC 6749 §4.4): a token is requested from ``tokenURL`` before the
/// first request, kept, requested again ``refreshBefore`` seconds before it expires, and once when
/// a request is answered 401.
package struct OAuth2: Sendable, Equatable {
    /// The token endpoint: an absolute URL, or a path on the SUT's base URL.
    package var tokenURL: String
    package var clientID: String
    /// The client secret, read from the environment variable the profile names (`client-secret-env:`).
    package var clientSecret: String
    /// The environment variable it came from (for messages; the secret is never printed).
    package var secretVariable: String
    package var scope: String?
    package var audience: String?
    /// How the client authenticates to the token endpoint.
    package var clientAuthentication = ClientAuthentication.basic
    /// Seconds before expiry at which a token is replaced.
    package var refreshBefore: Double = 30

    package init(tokenURL: String, clientID: String, clientSecret: String, secretVariable: String) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.secretVariable = secretVariable
    }

    /// `client-authentication:` — HTTP Basic (RFC 6749 §2.3.1, what every server must accept), or
    /// `client_id` and `client_secret` in the form body.
    package enum ClientAuthentication: String, Sendable, CaseIterable {
        case basic
        case body
    }
}

/// Per-device credentials: a token per (patient, device), sent in a header built from a template,
/// and reader tokens for alert reads (`auth.devices:`). The file has the shape of the reference
/// SUT's `--credentials` file, so one file can serve both.
package struct DeviceCredentials: Sendable, Equatable {
    /// The file the tokens came from.
    package var file: String
    /// The header carrying a token, `{token}` standing for it (default `Authorization: Bearer {token}`).
    package var header: String
    /// Token by `patient/device`.
    package var tokens: [String: String]
    /// Reader tokens (the first one is used for alert reads unless `auth.reader` is given).
    package var readers: [String]
    /// Admin tokens (the first one is used for lifecycle requests unless `lifecycle.headers` is given).
    package var admins: [String] = []
    /// People's tokens (`people:`): patients, caregivers and clinicians, for the access-control
    /// matrix (a patient by their scenario id); a person may have one valid token and expired or
    /// revoked ones.
    package var people: [PersonCredential] = []
    /// The header carrying a person's token (`people-header:`), `{token}` standing for it; nil: ``header``.
    package var peopleHeader: String?

    package init(file: String, header: String, tokens: [String: String], readers: [String]) {
        self.file = file
        self.header = header
        self.tokens = tokens
        self.readers = readers
    }

    /// The header for `token`.
    package func header(for token: String) -> String { header.replacingOccurrences(of: "{token}", with: token) }

    /// The header for a person's `token`.
    package func personHeader(for token: String) -> String {
        (peopleHeader ?? header).replacingOccurrences(of: "{token}", with: token)
    }

    /// The credential header of a device's requests, nil when the file has none for it.
    package func header(patient: String, device: String) -> String? {
        tokens["\(patient)/\(device)"].map(header(for:))
    }
}

extension SUTProfile {
    /// The ingestion routes as a run sends through them: the kinds the conformance statement does
    /// not claim (`conformance.kinds`) withheld.
    package var sendingRoutes: IngestionRoutes {
        var routes = ingestion.routes
        if let claimed = conformance.kinds {
            routes.withheld = Set(VitalKind.allCases.filter { !claimed.contains($0.rawValue) })
        }
        return routes
    }
}
