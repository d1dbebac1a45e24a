import Testing
import WaterClient
import WaterTransport

@Suite("ClientConfiguration")
struct ClientConfigurationTests {
    @Test("takes --server first, then WATER_SERVER, then the saved session's, then the local default")
    func precedence() {
        let environment = ["WATER_SERVER": "pi.local:7000"]
        #expect(
            ClientConfiguration.resolveServer(option: "10.0.0.2:1", environment: environment)
                == HostPort(host: "10.0.0.2", port: 1))
        #expect(
            ClientConfiguration.resolveServer(option: nil, environment: environment)
                == HostPort(host: "pi.local", port: 7000))
        #expect(
            ClientConfiguration.resolveServer(option: nil, environment: [:], saved: "pi.local:7001")
                == HostPort(host: "pi.local", port: 7001))
        #expect(
            ClientConfiguration.resolveServer(option: nil, environment: environment, saved: "pi.local:7001")
                == HostPort(host: "pi.local", port: 7000))
        #expect(
            ClientConfiguration.resolveServer(option: nil, environment: [:])
                == HostPort(host: "127.0.0.1", port: 7420))
    }

    @Test("refuses a server that is not HOST:PORT")
    func invalid() {
        #expect(ClientConfiguration.resolveServer(option: "pi.local:port", environment: [:]) == nil)
    }
}
