import WaterStore

/// One connection's replies that are not on their way to the socket yet, in call order: where
/// each one's bytes are in the connection's reply buffer, and the group of the shared log it
/// waits for. Owned by its ``Connection``, on its loop; socket-free, so tested on its own.
///
/// A reply may show the store's state only once the state it showed is durable: it waits for
/// the newest group anything was queued for when it was made (a handler's on the loop, which
/// reads and writes the archives then), or, for every other reply, when its turn ended. When a
/// group fails the writes it lost are rolled back, and the replies that told of them are
/// refused instead: a handler's one of whose own writes that group lost (``OwnWrites``: its
/// group, archive and epoch), or, for one that wrote nothing, any group it could have seen,
/// from the oldest not finished when its turn began up to the one it waited for (a read shows
/// every write queued by then, synced or not). A reply whose own writes are durable is never
/// refused, even when it waited for a later group (another thread queued one while its handler
/// ran) that failed, or when its own group lost another archive's stale write; and a reply made
/// before a later group of the same turn was queued waits only for its own.
struct PendingReplies {
    struct Reply: Equatable {
        var callID: UInt64
        /// Where its bytes are in the connection's reply buffer.
        var bytes: Range<Int>
        /// Made by a handler on the loop: it showed the archives, and fails with its group.
        var showsStore: Bool
        /// The newest group queued when it was made, for a reply that shows the store.
        var seen: UInt64?
        /// Its handler's own writes (nil: it wrote nothing).
        var own: OwnWrites?
        /// The group it waits for; nil until its turn ends.
        var group: UInt64?
        /// The oldest group whose writes it could have shown (set when its turn ends).
        var seenFrom: UInt64 = 0
    }

    private(set) var replies: [Reply] = []
    /// How many replies, from the first, have their group.
    private(set) var tagged = 0

    var isEmpty: Bool { replies.isEmpty }

    /// A reply made now, at `bytes` of the buffer; `seen` is the newest group queued so far for
    /// a reply that shows the store (nil for every other one), `own` those its own writes were
    /// queued in.
    mutating func append(_ callID: UInt64, bytes: Range<Int>, seen: UInt64? = nil, own: OwnWrites? = nil) {
        replies.append(Reply(callID: callID, bytes: bytes, showsStore: seen != nil, seen: seen, own: own))
    }

    /// A reply made now that shows only durable writes (a read off the loop, sent once what it
    /// saw is durable): it waits for no group.
    mutating func appendDurable(_ callID: UInt64, bytes: Range<Int>) {
        replies.append(Reply(callID: callID, bytes: bytes, showsStore: false, seen: 0))
    }

    /// The turn ended with everything queued in `group` or earlier: each reply made in it waits
    /// for the group it saw, or, when it saw none, for `group`. Every group before `seenFrom`
    /// had finished when the turn began (rolled back before it, if it failed).
    mutating func endTurn(holdingFor group: UInt64, seenFrom: UInt64) {
        while tagged < replies.count {
            replies[tagged].group = replies[tagged].seen ?? group
            replies[tagged].seenFrom = seenFrom
            tagged += 1
        }
    }

    /// Whether any reply waits for a group.
    var isHolding: Bool { tagged > 0 }

    /// Whether a reply waits that `outcome` refuses.
    func isHolding(refusedBy outcome: GroupOutcome) -> Bool {
        replies.indices.contains { isRefused($0, by: outcome) }
    }

    /// How many replies, from the first, may go once groups up to `durable` are done.
    func releasable(upTo durable: UInt64) -> Int {
        var count = 0
        // A reply waits behind the ones before it: a client reads them in call order.
        while count < tagged, let group = replies[count].group, group <= durable { count += 1 }
        return count
    }

    /// Whether the reply at `index` must say instead that nothing was saved: a group in `failed`
    /// lost a write of its handler's, or, when it wrote nothing, failed among those it could
    /// have seen.
    func isRefused(_ index: Int, failed: [GroupOutcome]) -> Bool {
        failed.contains { isRefused(index, by: $0) }
    }

    private func isRefused(_ index: Int, by outcome: GroupOutcome) -> Bool {
        let reply = replies[index]
        guard reply.showsStore, !outcome.succeeded else { return false }
        if let own = reply.own { return own.isLost(in: outcome) }
        guard let group = reply.group else { return false }
        return reply.seenFrom <= outcome.group && outcome.group <= group
    }

    /// The reply at `index` is rewritten (a refusal) at `bytes`; it no longer shows the store.
    mutating func rewrote(_ index: Int, at bytes: Range<Int>, refused: Bool) {
        replies[index].bytes = bytes
        if refused { replies[index].showsStore = false }
    }

    /// The first `count` replies went to the socket, and the buffer lost its first `bytes` bytes.
    mutating func sent(_ count: Int, bytes: Int) {
        replies.removeFirst(count)
        tagged -= count
        for index in replies.indices {
            replies[index].bytes = (replies[index].bytes.lowerBound - bytes)..<(replies[index].bytes.upperBound - bytes)
        }
    }
}
