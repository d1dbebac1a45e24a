import Testing
import WaterTransport

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
