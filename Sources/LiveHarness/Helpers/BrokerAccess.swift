import Foundation

/// Who may connect to the embedded mosquitto broker and what each may publish and subscribe to:
/// a password file (hashed by Debian's `mosquitto_passwd`) and an ACL file. Anonymous clients are
/// refused.
///
/// A run with the embedded reference SUT gives the SUT a user that reads the readings' topics and
/// writes confirmations, refusals and alerts; the harness a user that may publish and read every
/// topic (it plays every device, and observes the SUT's answers); and each of the scenario's
/// devices a user of its own, `{patient}/{device}` with the device's token as password, that may
/// publish only on its own patient's topics and read only its own patient's answers.
package struct BrokerAccess: Sendable, Equatable {
    /// A broker user: name, password and ACL lines (`topic read|write|readwrite FILTER`).
    package struct User: Sendable, Equatable {
        package var name: String
        package var password: String
        package var rules: [String]

        package init(name: String, password: String, rules: [String]) {
            self.name = name
            self.password = password
            self.rules = rules
        }
    }

    package var users: [User]

    package init(users: [User]) { self.users = users }

    /// Characters that cannot appear in a broker user name (the password file's separator, line
    /// breaks) or in a topic filter of an ACL rule (wildcards).
    static let forbidden = Set<Character>([":", "+", "#", "\n", "\r", "\0"])

    /// True when `id` can name a broker user and a topic level of an ACL rule.
    package static func usable(_ id: String) -> Bool {
        !id.isEmpty && !id.contains { forbidden.contains($0) || $0.isWhitespace }
    }

    /// Writes `passwords` (hashed with `mosquitto_passwd -U`) and `acl` into `directory` and returns
    /// the configuration lines that use them.
    func write(in directory: String, passwd: String) throws(HarnessError) -> String {
        let passwords = directory + "/passwords"
        let acl = directory + "/acl"
        var plain = ""
        var rules = ""
        for user in users {
            guard BrokerAccess.usable(user.name), !user.password.contains(where: \.isNewline) else {
                throw .usage("'\(user.name)' cannot name a broker user: no ':', '+', '#', spaces or line breaks")
            }
            plain += "\(user.name):\(user.password)\n"
            rules += "user \(user.name)\n" + user.rules.map { $0 + "\n" }.joined() + "\n"
        }
        // Readable by all: mosquitto started as root reads them after dropping to its own user. The
        // passwords are hashed before the broker starts.
        guard
            FileManager.default.createFile(
                atPath: passwords,
                contents: Data(plain.utf8),
                attributes: [.posixPermissions: 0o600]
            ),
            FileManager.default.createFile(
                atPath: acl,
                contents: Data(rules.utf8),
                attributes: [.posixPermissions: 0o644]
            )
        else { throw .infrastructure("cannot write the broker's password and ACL files in \(directory)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: passwd)
        process.arguments = ["-U", passwords]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do { try process.run() } catch { throw .infrastructure("cannot run \(passwd): \(error)") }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .infrastructure("\(passwd) -U \(passwords) failed: \(message)")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwords)
        return "allow_anonymous false\npassword_file \(passwords)\nacl_file \(acl)\n"
    }

    /// Where Debian installs `mosquitto_passwd` (package `mosquitto`); `PATH` is searched as a fallback.
    static func passwdExecutable() -> String? {
        let candidates =
            ["/usr/bin/mosquitto_passwd"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/mosquitto_passwd" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
