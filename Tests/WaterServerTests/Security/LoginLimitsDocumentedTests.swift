import Foundation
import Testing
import WaterTestSupport

@testable import WaterServer

/// The login and TLS limits as the code has them, against what `proto/README.md` (for client
/// writers) and `deploy/README.md`'s threat model (for the household) say.
@Suite("Login limits, as documented")
struct LoginLimitsDocumentedTests {
    /// A repository file's text with its line breaks and runs of spaces made single spaces.
    static func text(_ path: String) throws -> String {
        try repositoryText(path)
    }

    static let configuration = ServerConfiguration(dataDirectory: "/nowhere")

    @Test("proto/README.md states the throttle's counts and waits, the hash queue's bounds and the key exchange groups")
    func protocolPage() throws {
        let text = try Self.text("proto/README.md")
        let statements = [
            "After \(LoginThrottle.freeFailures) failures for one username from one address, or "
                + "\(LoginThrottle.freeFailuresPerAddress) from one address whatever the username",
            "up to \(LoginThrottle.maximumDelayMilliseconds / 60_000) minutes",
            "a login counts as failed from the moment its password check begins",
            "at most \(Self.configuration.concurrentPasswordHashes) at once",
            "at most \(Self.configuration.maximumPasswordChecksPerAddress) checks waiting or running",
            "Logins for one username from one address are checked one at a time",
            "`ChangePassword` counts a wrong `current_password` as a failed login",
            "Key exchange is **X25519 or P-256** (secp256r1) only",
        ]
        for statement in statements { #expect(text.contains(statement), "proto/README.md: \(statement)") }
    }

    @Test("deploy/README.md's threat model states the same, and that a restore ends every session")
    func threatModel() throws {
        let text = try Self.text("deploy/README.md")
        let statements = [
            "(\(LoginThrottle.freeFailures) and \(LoginThrottle.freeFailuresPerAddress) failures free, then 1 s, "
                + "doubling up to \(LoginThrottle.maximumDelayMilliseconds / 60_000) minutes)",
            "\(Self.configuration.concurrentPasswordHashes) at a time, at most "
                + "\(Self.configuration.maximumPasswordChecksPerAddress) per address",
            "keys agreed by X25519 or P-256 only",
            "A restore ends every session the backup held",
        ]
        for statement in statements { #expect(text.contains(statement), "deploy/README.md: \(statement)") }
    }
}
