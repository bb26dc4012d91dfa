import Crypto
import Foundation
import SwiftASN1

/// Ed25519 signatures of evidence bundles: the signer signs the exact bytes of `MANIFEST.sha256`
/// (which holds the sha256 of every other file), and writes `MANIFEST.sha256.sig`:
///
///     algorithm: ed25519
///     public-key: <base64 of the 32-byte public key>
///     signature: <base64 of the 64-byte signature>
///
/// Keys are PEM files as OpenSSL writes them (`openssl genpkey -algorithm ed25519`, PKCS #8;
/// `openssl pkey -pubout`, SubjectPublicKeyInfo), or made by `vitalsim keygen`. A verifier trusts
/// the public key it is given, never the one in the bundle (that one only names the signer).
package enum EvidenceSignature {
    /// The signature's file in a bundle.
    package static let file = "MANIFEST.sha256.sig"
    /// The environment variable a signing key's PEM text may come from (a CI secret).
    package static let environmentKey = "VITALSIM_SIGNING_KEY"

    /// The DER before the 32 key bytes of an Ed25519 PKCS #8 private key (RFC 8410 §7).
    static let privatePrefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]
    /// The DER before the 32 key bytes of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4).
    static let publicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// A signing key read from PEM text; `source` names where it came from, for messages.
    package static func privateKey(pem: String, source: String) throws(EvidenceError) -> SigningKey {
        guard let raw = try keyBytes(pem, type: "PRIVATE KEY", prefix: privatePrefix, source: source),
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw .invalid(
                "\(source) is not an Ed25519 private key (PKCS #8, as `openssl genpkey -algorithm ed25519` or `vitalsim keygen` writes it)"
            )
        }
        return SigningKey(raw: Array(key.rawRepresentation))
    }

    /// An Ed25519 public key.
    package typealias PublicKey = Curve25519.Signing.PublicKey

    /// A public key read from PEM text.
    package static func publicKey(pem: String, source: String) throws(EvidenceError) -> PublicKey {
        guard let raw = try keyBytes(pem, type: "PUBLIC KEY", prefix: publicPrefix, source: source),
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
        else {
            throw .invalid(
                "\(source) is not an Ed25519 public key (SubjectPublicKeyInfo, as `openssl pkey -pubout` or `vitalsim keygen` writes it)"
            )
        }
        return key
    }

    /// The 32 key bytes of the one PEM block of `type` in `text`, nil when its DER is not `prefix`
    /// and 32 bytes (another algorithm, or a key with optional fields).
    static func keyBytes(
        _ text: String,
        type: String,
        prefix: [UInt8],
        source: String
    ) throws(EvidenceError) -> [UInt8]? {
        guard let document = try? PEMDocument(pemString: text) else {
            throw .invalid("\(source) is not a PEM file (-----BEGIN \(type)----- … -----END \(type)-----)")
        }
        guard document.discriminator == type else {
            throw .invalid("\(source) holds a \(document.discriminator), not a \(type)")
        }
        let der = document.derBytes
        return der.count == prefix.count + 32 && der.starts(with: prefix) ? Array(der.suffix(32)) : nil
    }

    /// A new key pair as PEM text: the private key (PKCS #8) and the public key (SubjectPublicKeyInfo).
    package static func newKeyPair() -> (privatePEM: String, publicPEM: String) {
        let key = Curve25519.Signing.PrivateKey()
        return (
            PEMDocument(type: "PRIVATE KEY", derBytes: privatePrefix + Array(key.rawRepresentation)).pemString + "\n",
            publicPEM(key.publicKey)
        )
    }

    /// A public key as PEM text.
    package static func publicPEM(_ key: Curve25519.Signing.PublicKey) -> String {
        PEMDocument(type: "PUBLIC KEY", derBytes: publicPrefix + Array(key.rawRepresentation)).pemString + "\n"
    }

    /// The first 16 hex digits of the sha256 of a public key's 32 bytes: how messages name a signer.
    package static func fingerprint(_ key: Curve25519.Signing.PublicKey) -> String {
        String(EvidenceBundle.sha256(Array(key.rawRepresentation)).prefix(16))
    }

    /// Signs `manifest` (the bytes of a bundle's `MANIFEST.sha256`) into the bundle's ``file``.
    package static func sign(_ manifest: [UInt8], key: SigningKey, into directory: String) throws {
        let text = try signatureFile(manifest, key: key)
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + file))
    }

    /// The signature file's text for `manifest`.
    static func signatureFile(_ manifest: [UInt8], key: SigningKey) throws -> String {
        let signature = try key.key.signature(for: manifest)
        return """
            algorithm: ed25519
            public-key: \(key.key.publicKey.rawRepresentation.base64EncodedString())
            signature: \(Data(signature).base64EncodedString())

            """
    }

    /// What a bundle's signature says, checked against `trusted` when given.
    package enum Status: Sendable, Equatable {
        /// The bundle has no signature file.
        case unsigned
        /// Signed, but no public key was given to check it with: the signer's fingerprint.
        case signedUnverified(signer: String)
        /// Signed by the trusted key, over the manifest as it is.
        case verified(signer: String)
    }

    /// Checks the signature of the bundle in `directory` over `manifest` (its bytes). Throws when a
    /// trusted key is given and the bundle is unsigned, signed by another key, or altered since it
    /// was signed, and when the signature file cannot be read.
    package static func check(
        _ directory: String,
        manifest: [UInt8],
        trusted: Curve25519.Signing.PublicKey?
    ) throws(EvidenceError) -> Status {
        let path = directory + "/" + file
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if trusted != nil {
                throw .invalid(
                    "\(directory) is unsigned (no \(file)): it cannot be verified against the given public key"
                )
            }
            return .unsigned
        }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard fields["algorithm"] == "ed25519", let keyText = fields["public-key"],
            let keyBytes = Data(base64Encoded: keyText),
            let signer = try? Curve25519.Signing.PublicKey(rawRepresentation: keyBytes),
            let signatureText = fields["signature"], let signature = Data(base64Encoded: signatureText)
        else {
            throw .invalid("\(path) is not a signature VitalSim reads (algorithm: ed25519, public-key, signature)")
        }
        guard let trusted else { return .signedUnverified(signer: fingerprint(signer)) }
        guard trusted.isValidSignature(signature, for: manifest) else {
            let who =
                trusted.rawRepresentation == signer.rawRepresentation
                ? "the bundle was altered after it was signed"
                : "it was signed by key \(fingerprint(signer)), not by the given key \(fingerprint(trusted)), or altered"
            throw .invalid("\(directory): the signature of MANIFEST.sha256 does not verify: \(who)")
        }
        return .verified(signer: fingerprint(trusted))
    }

    /// An Ed25519 private key that signs evidence bundles.
    package struct SigningKey: Sendable {
        /// The key's 32 bytes (swift-crypto's key type is not `Sendable`).
        let raw: [UInt8]
        /// The key (its bytes were checked when it was read).
        var key: Curve25519.Signing.PrivateKey {
            try! Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        }

        /// The key's public half, as PEM text.
        package var publicPEM: String { EvidenceSignature.publicPEM(key.publicKey) }
        /// The signer's fingerprint.
        package var fingerprint: String { EvidenceSignature.fingerprint(key.publicKey) }
    }
}
