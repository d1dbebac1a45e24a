import WaterCodec
import WaterProtocol

/// What a ``Connection`` tells the server that owns it (both on the loop).
protocol ConnectionOwner: AnyObject {
    /// Where every connection of the loop reads into: one buffer, since one read runs at a time.
    var readBuffer: UnsafeMutableRawBufferPointer { get }
    /// Where TLS connections decrypt into, likewise shared.
    var plaintextBuffer: UnsafeMutableRawBufferPointer { get }
    /// Where the loop's connections decode envelopes and requests, one frame at a time.
    var decodeArena: WireArena { get }
    /// Where they encode replies, one at a time.
    var replyArena: WireArena { get }
    /// Whether `member`'s calls may take more of `turn` (``LoopShares``).
    func hasLoopShare(_ member: UInt64, inTurn turn: UInt64) -> Bool
    /// The loop spent `nanoseconds` of `turn` on a call of `member`'s.
    func chargeLoopShare(_ member: UInt64, nanoseconds: UInt64, inTurn turn: UInt64)
    /// The connection has replies or output to write at the end of this turn: the owner calls
    /// its ``Connection/endTurn(holdingFor:seenFrom:durable:failed:)`` then. A connection asks once a turn.
    func needsFlush(_ connection: Connection)
    /// The connection's handshake is answered: it is no longer pending.
    func handshakeCompleted(_ connection: Connection)
    /// A call on the connection logged in (the first): it is never closed to make room.
    func loggedIn(_ connection: Connection)
    /// The connection closed: the owner forgets it.
    func closed(_ connection: Connection)
}
