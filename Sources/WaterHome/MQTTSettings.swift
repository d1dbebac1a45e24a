import WaterTransport

/// Where and how `serve --mqtt` reaches the household's MQTT broker (Home Assistant's).
public struct MQTTSettings: Sendable, Equatable {
    /// The broker; 1883 unless given, 8883 with TLS.
    public var broker: HostPort
    /// Who the server logs in as; nil for a broker that lets anyone in.
    public var username: String?
    /// The password, as read from `--mqtt-password-file`. Never logged, never in `status`.
    public var password: String?
    /// TLS to the broker, verified against ``certificateAuthority`` or the system's CAs.
    public var tls = false
    /// A PEM file of the CA that signed the broker's certificate; nil trusts the system's.
    public var certificateAuthority: String?
    /// The first level of every topic the server publishes (`water/ben/state`), and of every
    /// sensor's id in Home Assistant.
    public var prefix = MQTTSettings.defaultPrefix

    public static let defaultPrefix = "water"
    public static let defaultPort: UInt16 = 1883
    public static let defaultTLSPort: UInt16 = 8883

    public init(broker: HostPort) {
        self.broker = broker
    }

    /// Whether `prefix` can be a topic's first level and a Home Assistant id: what a username
    /// may be (no `/`, `+`, `#` or space).
    public static func isValidPrefix(_ prefix: String) -> Bool {
        guard let first = prefix.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            prefix.utf8.count <= 32
        else { return false }
        return prefix.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
