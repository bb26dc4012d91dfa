import Foundation
import Judge
import Testing

/// Ed25519 signatures of evidence bundles: keys as OpenSSL writes them, a signature that a changed
/// byte, another key or its absence fails.
struct EvidenceSignatureTests {
    /// Made with `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`.
    static let opensslPrivate = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEICsFKRf2vy0iiOknwyCrlUJEtNm1KugZ4nZjSEJ0pPr/
        -----END PRIVATE KEY-----

        """
    static let opensslPublic = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAV8rh9E04Uc0Tc8rG3+z2MJOjibf/Vb7yICvT6uUl2oc=
        -----END PUBLIC KEY-----

        """
    /// `openssl pkeyutl -sign -inkey k.pem -rawin -in hello.txt | base64` (Ed25519 is deterministic).
    static let opensslSignatureOfHello =
        "qokhPFMKxL0pNzOJt0KaXAq/zEzCi38TLZHJfw7Y7b//SUR5lSqVBvDf0O+UkD/CGVdkcYwH5Eg82GRhG6UHAA=="

    /// A bundle folder holding one file, its manifest and (with `key`) the manifest's signature.
    static func bundle(signedWith key: EvidenceSignature.SigningKey?) throws -> (String, [UInt8]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitalsim-sig-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let manifest = Array("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  meta.json\n".utf8)
        try Data(manifest).write(to: URL(fileURLWithPath: directory + "/MANIFEST.sha256"))
        if let key {
            try EvidenceSignature.sign(manifest, key: key, into: directory)
        }
        return (directory, manifest)
    }

    @Test func keysAsOpenSSLWritesThemSignAsOpenSSLDoes() throws {
        let key = try EvidenceSignature.privateKey(pem: Self.opensslPrivate, source: "k.pem")
        #expect(key.publicPEM == Self.opensslPublic)
        let (directory, _) = try Self.bundle(signedWith: nil)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try EvidenceSignature.sign(Array("hello".utf8), key: key, into: directory)
        let text = try String(contentsOfFile: directory + "/" + EvidenceSignature.file, encoding: .utf8)
        #expect(text.contains("signature: \(Self.opensslSignatureOfHello)\n"), "\(text)")
        #expect(text.hasPrefix("algorithm: ed25519\npublic-key: V8rh9E04Uc0Tc8rG3+z2MJOjibf/Vb7yICvT6uUl2oc=\n"))
    }

    @Test func aSignedManifestVerifiesAndAChangedByteDoesNot() throws {
        let key = try EvidenceSignature.privateKey(pem: Self.opensslPrivate, source: "k.pem")
        let trusted = try EvidenceSignature.publicKey(pem: Self.opensslPublic, source: "k.pub")
        let (directory, manifest) = try Self.bundle(signedWith: key)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let signer = EvidenceSignature.fingerprint(trusted)
        #expect(
            try EvidenceSignature.check(directory, manifest: manifest, trusted: trusted) == .verified(signer: signer)
        )
        #expect(
            try EvidenceSignature.check(directory, manifest: manifest, trusted: nil)
                == .signedUnverified(signer: signer)
        )
        var changed = manifest
        changed[0] ^= 1
        #expect {
            try EvidenceSignature.check(directory, manifest: changed, trusted: trusted)
        } throws: { error in
            "\(error)".contains("does not verify: the bundle was altered after it was signed")
        }
    }

    @Test func anotherKeyOrNoSignatureFailsWithTheKey() throws {
        let pair = EvidenceSignature.newKeyPair()
        let other = try EvidenceSignature.publicKey(pem: pair.publicPEM, source: "other.pub.pem")
        let key = try EvidenceSignature.privateKey(pem: Self.opensslPrivate, source: "k.pem")
        let (signed, manifest) = try Self.bundle(signedWith: key)
        let (unsigned, _) = try Self.bundle(signedWith: nil)
        defer {
            try? FileManager.default.removeItem(atPath: signed)
            try? FileManager.default.removeItem(atPath: unsigned)
        }
        #expect {
            try EvidenceSignature.check(signed, manifest: manifest, trusted: other)
        } throws: { error in
            "\(error)".contains("signed by key \(key.fingerprint), not by the given key")
        }
        #expect(try EvidenceSignature.check(unsigned, manifest: manifest, trusted: nil) == .unsigned)
        #expect {
            try EvidenceSignature.check(unsigned, manifest: manifest, trusted: other)
        } throws: { error in
            "\(error)".contains("is unsigned (no MANIFEST.sha256.sig)")
        }
    }

    @Test(arguments: [
        ("not a key", "is not a PEM file"),
        (opensslPublic, "holds a PUBLIC KEY, not a PRIVATE KEY"),
        (
            "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n",
            "is not an Ed25519 private key"
        ),
    ])
    func keysThatAreNotEd25519PrivateKeysAreRefused(_ pem: String, _ expected: String) {
        #expect {
            try EvidenceSignature.privateKey(pem: pem, source: "key.pem")
        } throws: { error in
            "\(error)".hasPrefix("key.pem ") && "\(error)".contains(expected)
        }
    }
}
