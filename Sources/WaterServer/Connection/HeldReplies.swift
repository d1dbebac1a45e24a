import WaterStore

/// A connection as ``HeldReplies`` sees it: replies tagged, at the end of the turn that made
/// them, with the group of the log they wait for, and let go once that group is durable.
protocol HoldsReplies: AnyObject {
    /// Tags the turn's replies with `group` (and `seenFrom`, the oldest group they could have
    /// seen), and lets go those whose group is `durable` already, as refusals where they showed
    /// writes a group in `failed` lost.
    func endTurn(holdingFor group: UInt64, seenFrom: UInt64, durable: UInt64, failed: [GroupOutcome])
    /// Lets go the replies whose group is `durable` or older, as refusals where they showed
    /// writes a group in `failed` lost.
    func release(upTo durable: UInt64, failed: [GroupOutcome])
    /// Whether replies still wait.
    var isHoldingReplies: Bool { get }
    /// Whether a reply waits that `outcome` refuses (the group lost its write, or it wrote
    /// nothing and could have seen the group).
    func isHolding(refusedBy outcome: GroupOutcome) -> Bool
}

/// Which connections' replies wait for which group of the log, and how far the log is durable.
/// The event loop's (``ConnectionRegistry`` keeps one and calls it on the loop only): the only
/// place the loop learns a group is durable, whether its writer finished the group or the loop
/// committed it itself.
///
/// It owns the list of holders that wait: a holder is asked whether it holds replies, and never
/// told that it is listed (it keeps no field of this list's).
struct HeldReplies<Holder: HoldsReplies> {
    /// The newest group known durable.
    private(set) var durableGroup: UInt64 = 0
    /// Connections with replies waiting, and the same list while a group's replies are let go.
    private var holding: [Holder] = []
    private var released: [Holder] = []
    /// The holders in ``holding``, so that none is listed twice. Removing keeps the capacity, so
    /// once the table has room for the loop's connections, listing one allocates nothing.
    private var listed: Set<ObjectIdentifier> = []
    /// Groups that failed and still have replies waiting that their failure refuses, or that a
    /// reply of the turn now running may have written in (``lastTurnGroup`` or later) or seen
    /// (``turnSeesFrom`` or later).
    private var failedGroups: [GroupOutcome] = []
    /// The newest group queued when the last turn ended: the turn now running queues its writes
    /// in this group or a later one, and its replies are not tagged (nor listed here) until it
    /// ends, so a failure of such a group heard meanwhile is kept for them.
    private var lastTurnGroup: UInt64 = 0
    /// The oldest group not finished when the turn now running began: what its handlers read
    /// holds no write of an earlier group that failed (rolled back before the loop heard).
    private var turnSeesFrom: UInt64 = 1

    /// A turn ended: `publication` is what the committer did with its writes, `group` the newest
    /// group anything was queued for (what every reply of the turn may have seen), and
    /// `holders` the connections with replies made in the turn.
    mutating func turnEnded(_ publication: GroupCommitter.Publication, group: UInt64, holders: [Holder]) {
        if case .committedHere(let committed) = publication, committed.succeeded {
            durableGroup = max(durableGroup, committed.group)
        }
        for holder in holders {
            holder.endTurn(holdingFor: group, seenFrom: turnSeesFrom, durable: durableGroup, failed: failedGroups)
            if holder.isHoldingReplies, listed.insert(ObjectIdentifier(holder)).inserted {
                holding.append(holder)
            }
        }
        lastTurnGroup = group
        // A group the loop committed may be one that replies of earlier turns wait for (it was
        // handed to the writer, and the loop took it before the writer woke): they go too.
        if case .committedHere(let committed) = publication {
            groupCommitted(committed)
        } else {
            forgetFailures()
        }
        turnSeesFrom = durableGroup + 1
    }

    /// Whether `holder` is listed among those whose replies wait for a group.
    func isWaiting(on holder: Holder) -> Bool {
        listed.contains(ObjectIdentifier(holder))
    }

    /// A group is durable, or failed: the replies that waited for it go (as refusals where they
    /// showed writes a failed group lost).
    mutating func groupCommitted(_ outcome: GroupOutcome) {
        durableGroup = max(durableGroup, outcome.group)
        if !outcome.succeeded { failedGroups.append(outcome) }
        swap(&released, &holding)
        for holder in released {
            holder.release(upTo: durableGroup, failed: failedGroups)
            if holder.isHoldingReplies {
                holding.append(holder)
            } else {
                listed.remove(ObjectIdentifier(holder))
            }
        }
        released.removeAll(keepingCapacity: true)
        forgetFailures()
    }

    /// A failed group matters while a reply it refuses waits (one that wrote in it may wait for
    /// a later group, one that saw it for a later one), and while the running turn may still
    /// make one (write in it, or have read before the loop heard of its failure).
    private mutating func forgetFailures() {
        let running = min(lastTurnGroup, turnSeesFrom)
        failedGroups.removeAll { failed in
            failed.group < running && !holding.contains { $0.isHolding(refusedBy: failed) }
        }
    }
}
