import WaterStore

/// A connection as ``HeldReplies`` sees it: replies tagged, at the end of the turn that made
/// them, with the group of the log they wait for, and let go once that group is durable.
protocol HoldsReplies: AnyObject {
    /// Tags the turn's replies with `group`, and lets go those whose group is `durable` already,
    /// as refusals where they showed the writes of a group in `failed`.
    func endTurn(holdingFor group: UInt64, durable: UInt64, failed: [UInt64])
    /// Lets go the replies whose group is `durable` or older, as refusals where they showed the
    /// writes of a group in `failed`.
    func release(upTo durable: UInt64, failed: [UInt64])
    /// Whether replies still wait.
    var isHoldingReplies: Bool { get }
    /// Whether a reply waits that `group`'s failure refuses (it wrote in `group`, or wrote
    /// nothing and waits for it).
    func isHolding(refusedBy group: UInt64) -> Bool
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
    /// reply of the turn now running may have written in (``lastTurnGroup`` or later).
    private var failedGroups: [UInt64] = []
    /// The newest group queued when the last turn ended: the turn now running queues its writes
    /// in this group or a later one, and its replies are not tagged (nor listed here) until it
    /// ends, so a failure of such a group heard meanwhile is kept for them.
    private var lastTurnGroup: UInt64 = 0

    /// A turn ended: `publication` is what the committer did with its writes, `group` the newest
    /// group anything was queued for (what every reply of the turn may have seen), and
    /// `holders` the connections with replies made in the turn.
    mutating func turnEnded(_ publication: GroupCommitter.Publication, group: UInt64, holders: [Holder]) {
        if case .committedHere(let committed, succeeded: true) = publication {
            durableGroup = max(durableGroup, committed)
        }
        for holder in holders {
            holder.endTurn(holdingFor: group, durable: durableGroup, failed: failedGroups)
            if holder.isHoldingReplies, listed.insert(ObjectIdentifier(holder)).inserted {
                holding.append(holder)
            }
        }
        lastTurnGroup = group
        // A group the loop committed may be one that replies of earlier turns wait for (it was
        // handed to the writer, and the loop took it before the writer woke): they go too.
        if case .committedHere(let committed, let succeeded) = publication {
            groupCommitted(committed, succeeded: succeeded)
        } else {
            forgetFailures()
        }
    }

    /// Whether `holder` is listed among those whose replies wait for a group.
    func isWaiting(on holder: Holder) -> Bool {
        listed.contains(ObjectIdentifier(holder))
    }

    /// `group` is durable, or failed: the replies that waited for it go (as refusals where they
    /// showed writes of a failed group).
    mutating func groupCommitted(_ group: UInt64, succeeded: Bool) {
        durableGroup = max(durableGroup, group)
        if !succeeded { failedGroups.append(group) }
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
    /// a later group), and while the running turn may still make one.
    private mutating func forgetFailures() {
        failedGroups.removeAll { failed in
            failed < lastTurnGroup && !holding.contains { $0.isHolding(refusedBy: failed) }
        }
    }
}
