import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTLS
import WaterTestSupport

/// The repository's folder `path`.
private func repository(_ path: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../\(path)")
        .standardizedFileURL.path
}

@Suite("TLS, end to end", .serialized)
struct TLSTests {
    @Test(
        "init prints the certificate's fingerprint, status shows it, and login --fingerprint pins it for later commands"
    )
    func pinnedLogin() throws {
        let server = try ServerProcess.fresh(tls: true)
        let fingerprint = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(status.output.contains("certificate: \(fingerprint)"))
        let mum = server.cli("mum")
        let login = try mum.run(
            ["login", "mum", "--password-stdin", "--fingerprint", fingerprint.description], input: adminPassword + "\n")
        #expect(login.status == 0, "\(login.error)")
        #expect(try mum.run(["log", "250"]).status == 0)
        let today = try mum.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(today.day?.amountMl == 250)
        #expect(server.stop() == 0)
    }

    @Test("a first login with no terminal to ask and no --fingerprint is refused and shows the fingerprint to check")
    func unpinnedWithoutTerminal() throws {
        let server = try ServerProcess.fresh(tls: true)
        let fingerprint = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
        let refused = try server.cli("mum").run(["login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(refused.status == 77)
        #expect(refused.error.contains(fingerprint.description) && refused.error.contains("--fingerprint"))
        #expect(server.stop() == 0)
        #expect(!server.log.contains("login"), "no password was sent: \(server.log)")
    }

    @Test("a server whose certificate changed is refused, with how to check it and re-pin")
    func changedCertificate() throws {
        var server = try ServerProcess.fresh(tls: true)
        let mum = server.cli("mum")
        let first = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
        let login = try mum.run(
            ["login", "mum", "--password-stdin", "--fingerprint", first.description], input: adminPassword + "\n")
        #expect(login.status == 0, "\(login.error)")
        #expect(server.stop() == 0)
        // Another key, as an impostor (or a reinstall) would have: the server makes a new pair.
        try FileManager.default.removeItem(atPath: "\(server.dataDirectory)/tls")
        server = try server.restarted(["--listen", server.address.description])
        let changed = try mum.run(["today"])
        #expect(changed.status != 0)
        #expect(changed.error.contains("water-server status") && changed.error.contains("--fingerprint"))
        #expect(changed.error.contains(first.description))
        // The library says the same, and a plaintext client gets no further than TLS.
        let library = try #require(throws: WaterError.self) {
            try WaterClient(configuration: ClientConfiguration(server: server.address, security: .pinned(first)))
        }
        #expect(library.code == .failedPrecondition)
        #expect(throws: WaterError.self) {
            let plaintext = try WaterClient(
                configuration: ClientConfiguration(server: server.address, security: .plaintext))
            _ = try plaintext.call(WaterV1.GetSettingsRequest())
        }
        #expect(server.stop() == 0)
    }

    @Test("ChaCha20-Poly1305 is agreed (what a Raspberry Pi 4 wants), and the library works over TLS")
    func chacha() throws {
        let server = try ServerProcess.fresh(tls: true)
        let mum = try server.client("mum", password: adminPassword)
        #expect(mum.connection.cipher == "TLS_CHACHA20_POLY1305_SHA256")
        #expect(
            try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 200)).day?.amountMl == 200)
        #expect(server.stop() == 0)
    }

    @Test("a saved TLS session is resumed by the next connection")
    func resumption() throws {
        let server = try ServerProcess.fresh(tls: true)
        let first = try server.client("mum", password: adminPassword)
        _ = try first.call(WaterV1.GetSettingsRequest())  // the ticket comes after the handshake
        let saved = try #require(first.connection.savedTLSSession)
        var configuration = ClientConfiguration(server: server.address, security: server.security)
        configuration.tlsSessionToResume = saved
        let second = try WaterConnection(configuration: configuration)
        #expect(second.resumedTLSSession)
        #expect(second.serverFingerprint == first.connection.serverFingerprint)
        #expect(server.stop() == 0)
    }

    @Test("plaintext is refused on an address other machines reach, and allowed on loopback only")
    func plaintextOnlyOnLoopback() throws {
        let server = try ServerProcess.fresh(tls: true)
        #expect(server.stop() == 0)
        let refused = try run(
            "water-server", ["serve", "--data", server.dataDirectory, "--listen", "0.0.0.0:0", "--plaintext"])
        #expect(refused.status == 64 && refused.error.contains("insecure"))
        let help = try run("water-server", ["--help"])
        #expect(help.output.contains("--plaintext") && help.output.contains("insecure"))
        #expect(try run("water-client", ["--help"]).output.contains("insecure"))
    }

    @Test("a client written in Python from proto/README.md alone connects over TLS, pins, logs in and logs a drink")
    func pythonClient() throws {
        let server = try ServerProcess.fresh(tls: true)
        let fingerprint = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
        let python = try ChildProcess(
            "/usr/bin/python3",
            [
                repository("Tests/EndToEndTests/Python/tls_client.py"), repository("proto"), server.address.host,
                "\(server.address.port)", fingerprint.description, "mum", adminPassword,
            ])
        let output = python.readOutput(seconds: 60)
        #expect(python.wait() == 0, "\(python.errorText)")
        #expect(output.hasPrefix("ok 330 TLS_"), "\(output)")
        #expect(server.stop() == 0)
    }
}
