import Foundation
import SUTAdapter
import Transports
import VitalSimCore

/// The SUT profile at `path` (nil without `--sut`); a profile that cannot be loaded is printed
/// with its file, line and key, and exits 2.
func loadProfile(_ path: String?) throws -> SUTProfile? {
    guard let path else { return nil }
    do throws(ScenarioLoadError) {
        return try SUTProfileLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
    } catch {
        throw CommandFailure.input(error.description)
    }
}

/// The client certificate of `--client-cert`/`--client-key`, else of the profile's `tls`; a
/// missing file or a certificate without its key is exit 2.
func clientCertificate(certificate: String?, key: String?, profile: SUTProfile?) throws -> ClientCertificate? {
    guard (certificate == nil) == (key == nil) else {
        throw CommandFailure.input("--client-cert and --client-key go together")
    }
    for file in [certificate, key].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
        throw CommandFailure.input("no readable file at \(file) (--client-cert/--client-key)")
    }
    if let certificate, let key { return ClientCertificate(certificate: certificate, key: key) }
    guard let c = profile?.tls.clientCertificate, let k = profile?.tls.clientKey else { return nil }
    return ClientCertificate(certificate: c, key: k)
}

/// The MQTT credentials of the profile's `mqtt` section.
func mqttCredentials(_ profile: SUTProfile?) -> MQTTCredentials {
    guard let mqtt = profile?.mqtt else { return MQTTCredentials() }
    var credentials = MQTTCredentials(username: mqtt.username, password: mqtt.password)
    if let cert = mqtt.clientCertificate, let key = mqtt.clientKey {
        credentials.clientCertificate = ClientCertificate(certificate: cert, key: key)
    }
    return credentials
}
