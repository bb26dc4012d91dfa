import Crypto
import Foundation
import SwiftASN1
import X509

/// Mints a throwaway certificate authority and a server certificate for `localhost`, 127.0.0.1 and
/// ::1 (`vitalsim serve --self-signed`), valid for seven days. Clients trust `caFile`.
package struct SelfSignedCertificate: Sendable {
    /// PEM of the CA to trust (`curl --cacert`, `vitalsim run --cacert`).
    package var caFile: String
    /// PEM chain of the server certificate (leaf, then CA).
    package var certificateFile: String
    /// PEM of the server's private key.
    package var keyFile: String

    /// Writes `ca.pem`, `server.pem` and `server-key.pem` into `directory`.
    package static func make(in directory: String, now: Date = Date()) throws(ReferenceSetupError) -> SelfSignedCertificate {
        do {
            let caKey = P256.Signing.PrivateKey()
            let serverKey = P256.Signing.PrivateKey()
            let caName = try DistinguishedName { CommonName("VitalSim throwaway CA") }
            let serverName = try DistinguishedName { CommonName("localhost") }
            let ca = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: .init(caKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(7 * 86_400),
                issuer: caName,
                subject: caName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(caKey)
            )
            let server = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: .init(serverKey.publicKey),
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(7 * 86_400),
                issuer: caName,
                subject: serverName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames([
                        .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                        .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                    ])
                },
                issuerPrivateKey: .init(caKey)
            )
            let out = SelfSignedCertificate(
                caFile: directory + "/ca.pem",
                certificateFile: directory + "/server.pem",
                keyFile: directory + "/server-key.pem"
            )
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data((try ca.serializeAsPEM().pemString + "\n").utf8).write(to: URL(fileURLWithPath: out.caFile))
            try Data((try server.serializeAsPEM().pemString + "\n" + (try ca.serializeAsPEM().pemString) + "\n").utf8).write(
                to: URL(fileURLWithPath: out.certificateFile)
            )
            try Data((serverKey.pemRepresentation + "\n").utf8).write(to: URL(fileURLWithPath: out.keyFile), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: out.keyFile)
            return out
        } catch {
            throw .tls("cannot mint a self-signed certificate in \(directory): \(error)")
        }
    }
}
