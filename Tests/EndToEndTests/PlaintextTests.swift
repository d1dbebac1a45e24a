import Foundation
import Testing
import WaterSync

/// Issue 18, item 8: plaintext (a password and tokens in the clear) only ever reaches this
/// machine, whatever the name given looks like.
@Suite("Plaintext only on loopback, end to end", .serialized)
struct PlaintextTests {
    @Test("WATER_PLAINTEXT and --plaintext reach only loopback addresses: nothing is sent to another")
    func plaintextOnlyToLoopback() throws {
        let connections = Locked(0)
        try withFakeServer({ _ in connections.withLock { $0 += 1 } }) { port in
            let mum = CommandLineUser.alone(["WATER_PLAINTEXT": "1"])
            // 0.0.0.0 reaches this machine's listeners, but it is no loopback address.
            for server in ["0.0.0.0:\(port)", "[::]:\(port)"] {
                let login = try mum.run(["--server", server, "login", "mum", "--password-stdin"], input: "secret-1\n")
                #expect(login.status == 77, "\(login.error)")
                #expect(
                    login.error.contains("only reaches a server on this machine")
                        && login.error.contains("nothing was sent"))
            }
        }
        #expect(connections.withLock { $0 } == 0)
        // A name that resolves to loopback only is fine.
        let server = try ServerProcess.fresh()
        let mum = CommandLineUser.alone()
        let login = try mum.run(
            ["--plaintext", "--server", "localhost:\(server.address.port)", "login", "mum", "--password-stdin"],
            input: adminPassword + "\n")
        #expect(login.status == 0, "\(login.error)")
        #expect(server.stop() == 0)
    }

    @Test("serve --plaintext resolves --listen: every address must be loopback, and it binds the one it checked")
    func plaintextListen() throws {
        let server = try ServerProcess.fresh()
        #expect(server.stop() == 0)
        for listen in ["127.evil.invalid:0", "localhost.invalid:0", "[::]:0", "0.0.0.0:0"] {
            let refused = try run(
                "water-server", ["serve", "--data", server.dataDirectory, "--listen", listen, "--plaintext"])
            #expect(refused.status == 64 && refused.error.contains("insecure"), "\(listen): \(refused.error)")
        }
        let local = try ServerProcess(dataDirectory: server.dataDirectory, options: ["--listen", "localhost:0"])
        let host = local.address.host
        #expect(host == "127.0.0.1" || host == "::1", "listening on \(local.address)")
        #expect(local.stop() == 0)
    }
}
