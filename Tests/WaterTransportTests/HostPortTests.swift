import Testing

@testable import WaterTransport

@Suite("HostPort")
struct HostPortTests {
    @Test(
        "parses what people type",
        arguments: [
            ("127.0.0.1:7420", "127.0.0.1", 7420),
            ("pi.local:9000", "pi.local", 9000),
            ("pi.local", "pi.local", 7420),
            ("[::1]:7421", "::1", 7421),
            ("[::1]", "::1", 7420),
            ("localhost:0", "localhost", 0),
        ] as [(String, String, UInt16)])
    func parses(text: String, host: String, port: UInt16) throws {
        let parsed = try #require(HostPort(parsing: text, defaultPort: 7420))
        #expect(parsed == HostPort(host: host, port: port))
    }

    @Test(
        "refuses what is not a host and port",
        arguments: [
            "", ":7420", "pi.local:", "pi.local:65536", "pi.local:-1", "::1", "[::1", "[::1]x", "a b:1", "host:http",
        ])
    func refuses(text: String) {
        #expect(HostPort(parsing: text, defaultPort: 7420) == nil)
    }

    @Test("prints IPv6 hosts in brackets")
    func description() {
        #expect(HostPort(host: "::1", port: 7420).description == "[::1]:7420")
        #expect(HostPort(host: "127.0.0.1", port: 7420).description == "127.0.0.1:7420")
    }
}

/// Issue 18, item 8: plaintext only reaches, and is only served on, this machine.
@Suite("Loopback addresses")
struct LoopbackTests {
    @Test(
        "every resolved address loopback: the numeric address to use",
        arguments: [
            ("127.0.0.1", "127.0.0.1"), ("127.1.2.3", "127.1.2.3"), ("::1", "::1"),
            ("::ffff:127.0.0.1", "::ffff:127.0.0.1"), ("localhost", "127.0.0.1"),
        ])
    func loopback(host: String, numeric: String) throws {
        let resolved = try HostPort(host: host, port: 7420).loopbackAddress()
        // localhost may resolve to ::1 first on another machine; either is loopback.
        #expect(resolved.port == 7420 && (resolved.host == numeric || host == "localhost"))
        #expect(try SocketAddress.resolveAll(resolved).allSatisfy(\.isLoopback))
    }

    @Test(
        "any other address is refused, named",
        arguments: ["0.0.0.0", "::", "192.0.2.1", "10.0.0.1", "::ffff:10.0.0.1", "::2", "128.0.0.1"])
    func notLoopback(host: String) {
        let error = #expect(throws: NotLoopback.self) { try HostPort(host: host, port: 7420).loopbackAddress() }
        #expect(error?.description.contains("not a loopback address") == true)
    }

    @Test("a name is never trusted for what it looks like: one that does not resolve is refused too")
    func names() {
        #expect(throws: (any Error).self) { try HostPort(host: "127.evil.invalid", port: 7420).loopbackAddress() }
        #expect(throws: (any Error).self) { try HostPort(host: "localhost.invalid", port: 7420).loopbackAddress() }
    }

    @Test("a name resolving to a loopback address and to another machine's is refused, naming both")
    func mixed() throws {
        let loopback = try SocketAddress.resolveAll(HostPort(host: "127.0.0.1", port: 7420))
        let lan = try SocketAddress.resolveAll(HostPort(host: "192.0.2.9", port: 7420))
        let name = HostPort(host: "localhost", port: 7420)
        #expect(try name.loopbackAddress(among: loopback) == HostPort(host: "127.0.0.1", port: 7420))
        let error = #expect(throws: NotLoopback.self) { try name.loopbackAddress(among: loopback + lan) }
        #expect(
            error?.description
                == "localhost:7420 resolves to 127.0.0.1, 192.0.2.9, not only to loopback addresses (127.0.0.1, ::1)")
        #expect(throws: NotLoopback.self) { try name.loopbackAddress(among: []) }
    }
}
