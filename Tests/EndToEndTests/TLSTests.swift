import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTLS
import WaterTestSupport
import WaterTransport

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
        #expect(changed.status == 77, "\(changed)")
        #expect(changed.error.contains("water-server status") && changed.error.contains("--fingerprint"))
        #expect(changed.error.contains(first.description))
        // The library says the same, and a plaintext client gets no further than TLS.
        let library = try #require(throws: WaterError.self) {
            try WaterClient(configuration: ClientConfiguration(server: server.address, security: .pinned(first)))
        }
        #expect(library.code == .permissionDenied)
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

    @Test("a CA-issued certificate is verified against the system's CAs and the host name, and nothing is pinned")
    func certificateAuthority() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try makeHouseholdCA(in: folder)
        let server = try ServerProcess.fresh(
            ["--tls-cert", "\(folder)/server.pem", "--tls-key", "\(folder)/server.key"], tls: true)
        // The client's "system CAs" are the household CA alone (OpenSSL reads SSL_CERT_FILE).
        var environment = server.cli("mum").environment
        environment["SSL_CERT_FILE"] = "\(folder)/ca.pem"
        environment["WATER_SERVER"] = "localhost:\(server.address.port)"
        let mum = CommandLineUser(environment: environment)
        let login = try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 0, "\(login.error)")
        #expect(try mum.run(["log", "150"]).status == 0)
        let known = try String(
            contentsOfFile: "\(environment["XDG_CONFIG_HOME"]!)/water/known_servers", encoding: .utf8)
        #expect(known.contains("localhost:\(server.address.port) ca"))
        // The same server by another name is not what the certificate vouches for: not trusted.
        environment["WATER_SERVER"] = "127.0.0.1:\(server.address.port)"
        environment["XDG_CONFIG_HOME"]! += "-by-address"
        let byAddress = try CommandLineUser(environment: environment).run(
            ["login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(byAddress.status == 77)
        #expect(server.stop() == 0)
    }

    @Test("a data directory made before TLS gets its certificate at its first start")
    func serveMakesTheCertificate() throws {
        let server = try ServerProcess.fresh(tls: true)
        let certificate = "\(server.dataDirectory)/tls/certificate.pem"
        let first = try String(contentsOfFile: certificate, encoding: .utf8)
        let restarted = try server.restarted(whileStopped: {
            try FileManager.default.removeItem(atPath: "\(server.dataDirectory)/tls")
        })
        let made = try String(contentsOfFile: certificate, encoding: .utf8)
        #expect(made.hasPrefix("-----BEGIN CERTIFICATE-----") && made != first)
        #expect(restarted.stop() == 0)
    }

    @Test("serve on a missing or empty directory refuses in one line, exit 69, and makes nothing there")
    func serveNeverMakesAHousehold() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fresh-\(UUID())").path
        try FileManager.default.createDirectory(atPath: "\(folder)/empty", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for data in ["\(folder)/missing", "\(folder)/empty"] {
            // Killed if it serves instead (status 137).
            let served = try run(
                "water-server", ["serve", "--data", data, "--listen", "127.0.0.1:0", "--plaintext"], seconds: 30)
            #expect(served.status == 69, "\(data): \(served.output)\(served.error)")
            #expect(served.error.contains("\(data) is not a water data directory"), "\(served.error)")
            #expect(served.error.contains("water-server init --data \(data)"), "\(served.error)")
            #expect(served.error.split(separator: "\n").count == 1, "\(served.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/missing"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/empty").isEmpty)
    }

    @Test("init refuses a bad --admin before asking for a password or making anything")
    func initChecksFirst() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fresh-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try run(
            "water-server", ["init", "--data", folder, "--admin", "Mum!", "--password-stdin"], input: "mum-password-1\n"
        )
        #expect(made.status == 65, "\(made.output)\(made.error)")
        #expect(made.error.contains("a username must start with a-z"), "\(made.error)")
        #expect(!FileManager.default.fileExists(atPath: folder), "init left a half-made directory")
    }

    @Test("a connection that never starts TLS is closed at the handshake deadline")
    func silentTLS() throws {
        let server = try ServerProcess.fresh(["--handshake-deadline", "1"], tls: true)
        let silent = try Socket.connect(to: server.address)
        defer { silent.close() }
        try silent.setReceiveTimeout(milliseconds: 30_000)
        let started = Date()
        var buffer = [UInt8](repeating: 0, count: 64)
        let read = try buffer.withUnsafeMutableBytes { try silent.read(into: $0) }
        #expect(read == 0, "closed, not timed out")
        // The log says which deadline closed it; the time only tells the 1 s asked for from the
        // default 10 s.
        #expect(Date().timeIntervalSince(started) < 8, "--handshake-deadline 1 was not the deadline")
        #expect(server.stop() == 0)
        #expect(server.log.contains("the TLS handshake did not finish within 1.0 seconds"))
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
        let help = try run("water-server", ["serve", "--help"])
        #expect(help.output.contains("--plaintext") && help.output.contains("insecure"))
        #expect(try run("water-client", ["--help"]).output.contains("insecure"))
    }

    @Test(
        "key exchange is X25519 or P-256 only: Debian's openssl offering only FFDHE groups is refused in the handshake"
    )
    func keyExchangeGroups() throws {
        let server = try ServerProcess.fresh(tls: true)
        func handshake(_ groups: String) throws -> (status: Int32, output: String) {
            let openssl = try ChildProcess(
                "/usr/bin/openssl",
                [
                    "s_client", "-connect", server.address.description, "-tls1_3", "-groups", groups, "-alpn",
                    "water/1",
                ], input: "")
            let output = openssl.readOutput(seconds: 30)
            return (openssl.wait(), output + openssl.errorText)
        }
        for groups in ["ffdhe2048", "ffdhe8192", "ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192"] {
            let refused = try handshake(groups)
            #expect(refused.status != 0 && refused.output.contains("handshake failure"), "\(groups): \(refused.output)")
        }
        for (groups, key) in [("X25519", "X25519"), ("P-256", "prime256v1"), ("ffdhe8192:P-256", "prime256v1")] {
            let agreed = try handshake(groups)
            #expect(agreed.status == 0, "\(groups): \(agreed.output)")
            #expect(agreed.output.contains("Server Temp Key: ") && agreed.output.contains(key), "\(agreed.output)")
            #expect(agreed.output.contains("ALPN protocol: water/1"))
        }
        #expect(server.stop() == 0)
        #expect(server.log.contains("no suitable key share"))
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
