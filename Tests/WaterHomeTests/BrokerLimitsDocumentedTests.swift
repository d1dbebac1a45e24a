import Foundation
import Testing
import WaterTestSupport

@testable import WaterHome

/// What the server takes from the MQTT broker (issue 30), as the code has it, against what
/// `README.md` and `deploy/README.md` (its threat model and its Home Assistant section) say.
@Suite("The MQTT broker's limits, as documented")
struct BrokerLimitsDocumentedTests {
    static let limit = MQTTConnection.maximumPacketLength

    @Test("README.md and deploy/README.md's threat model state the packet limit and the QoS refused")
    func limits() throws {
        #expect(Self.limit == 8 * 1024)
        for path in ["README.md", "deploy/README.md"] {
            let text = try repositoryText(path)
            let statement = "at most 8 KiB (\(Self.limit) bytes) a packet, and no message at QoS 1 or 2"
            #expect(text.contains(statement), "\(path): \(statement)")
        }
    }

    @Test("deploy/README.md quotes the log's refusals as the relay words them")
    func refusalsInTheLog() throws {
        let text = try repositoryText("deploy/README.md")
        let refusals: [BrokerPacketFilter.Refusal] = [.publishQoS(2), .tooLarge(length: 0, limit: Self.limit)]
        for refusal in refusals {
            let quoted = "\(refusal)".replacingOccurrences(of: "0 bytes", with: "N bytes")
            #expect(text.contains(quoted), "deploy/README.md: \(quoted)")
        }
    }
}
