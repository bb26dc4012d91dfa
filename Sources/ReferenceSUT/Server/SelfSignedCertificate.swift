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
    /// A client certificate signed by the same CA and its key (`client.pem`, `client-key.pem`), for
    /// mutual TLS; nil unless asked for.
    package var client: (certificate: String, key: String)?

    /// Writes `ca.pem`, `server.pem` and `server-key.pem` into `directory`, and with `client`
    /// `client.pem` and `client-key.pem`.
    package static func make(
        in directory: String,
        client: Bool = false,
        now: Date = Date()
    ) throws(ReferenceSetupError) -> SelfSignedCertificate {
        do {
            let caKey = P256.Signing.PrivateKey()
            let serverKey = P256.Signing.PrivateKey()
            let caName = try DistinguishedName { CommonName("VitalSim throwaway CA") }
            let ca = try issue(
                caName,
                key: caKey.publicKey,
                by: caName,
                caKey: caKey,
                now: now,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                }
            )
            let server = try serverCertificate(key: serverKey, caName: caName, caKey: caKey, now: now)
            var out = SelfSignedCertificate(
                caFile: directory + "/ca.pem",
                certificateFile: directory + "/server.pem",
                keyFile: directory + "/server-key.pem"
            )
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data((try ca.serializeAsPEM().pemString + "\n").utf8).write(to: URL(fileURLWithPath: out.caFile))
            try Data((try server.serializeAsPEM().pemString + "\n" + (try ca.serializeAsPEM().pemString) + "\n").utf8)
                .write(
                    to: URL(fileURLWithPath: out.certificateFile)
                )
            try Data((serverKey.pemRepresentation + "\n").utf8).write(
                to: URL(fileURLWithPath: out.keyFile),
                options: .atomic
            )
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: out.keyFile)
            if client { out.client = try clientCertificate(in: directory, caName: caName, caKey: caKey, now: now) }
            return out
        } catch {
            throw .tls("cannot mint a self-signed certificate in \(directory): \(error)")
        }
    }

    /// The server certificate for localhost, 127.0.0.1 and ::1, signed by the throwaway CA.
    static func serverCertificate(
        key serverKey: P256.Signing.PrivateKey,
        caName: DistinguishedName,
        caKey: P256.Signing.PrivateKey,
        now: Date
    ) throws -> Certificate {
        try issue(
            try DistinguishedName { CommonName("localhost") },
            key: serverKey.publicKey,
            by: caName,
            caKey: caKey,
            now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                ])
            }
        )
    }

    /// A certificate for `subject`'s `key`, valid from an hour ago for seven days, signed by the CA.
    static func issue(
        _ subject: DistinguishedName,
        key: P256.Signing.PublicKey,
        by caName: DistinguishedName,
        caKey: P256.Signing.PrivateKey,
        now: Date,
        extensions: Certificate.Extensions
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(7 * 86_400),
            issuer: caName,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: .init(caKey)
        )
    }

    /// A certificate for TLS clients (`clientAuth`), signed by the throwaway CA.
    static func clientCertificate(
        in directory: String,
        caName: DistinguishedName,
        caKey: P256.Signing.PrivateKey,
        now: Date
    ) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let certificate = try issue(
            try DistinguishedName { CommonName("vitalsim test client") },
            key: key.publicKey,
            by: caName,
            caKey: caKey,
            now: now,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
            }
        )
        let paths = (certificate: directory + "/client.pem", key: directory + "/client-key.pem")
        try Data((try certificate.serializeAsPEM().pemString + "\n").utf8).write(
            to: URL(fileURLWithPath: paths.certificate)
        )
        try Data((key.pemRepresentation + "\n").utf8).write(to: URL(fileURLWithPath: paths.key), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: paths.key)
        return paths
    }
}
