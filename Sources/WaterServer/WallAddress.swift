import WaterSync

/// How the kitchen wall is served, for CreateWallLink's answer: told by the wall once it
/// listens (``BoardFeed/wallListening(scheme:port:)``), read by the handler on the loop. Nil
/// while the server serves no wall. One lock, taken once per link made.
final class WallAddress: Sendable {
    private let listening = Locked<(scheme: String, port: UInt16)?>(nil)

    func set(scheme: String, port: UInt16) { listening.withLock { $0 = (scheme, port) } }

    /// `https` or `http`, and the port; nil without a wall.
    var current: (scheme: String, port: UInt16)? { listening.withLock { $0 } }
}
