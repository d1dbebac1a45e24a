import Dispatch

/// Who commits the queued writes, and when: the committer's leadership as a state machine,
/// events in and actions out (as the connection's ``ConnectionStateMachine`` is in the server),
/// so that each rule is one transition, tested event by event without a thread or a disk.
/// ``GroupCommitter`` keeps it under its queue's lock and carries out what it answers.
///
/// Without a writer (tools, tests), the first caller to queue onto an idle committer leads: it
/// commits everything queued, a group at a time, until nothing is left. With a writer (a
/// server), the writer thread leads for good; it takes a group once the writes are published
/// (an event loop's at the end of its turn, anyone else's at once), and a lone write of a loop
/// whose earlier groups are all told is committed by the loop itself.
struct CommitLeadership {
    /// The writer thread's state, when one runs.
    struct Writer: Equatable {
        /// It waits for a wake-up (a semaphore signal, which the caller must send).
        var isIdle = false
        /// It is to stop once nothing is left.
        var isStopping = false
        /// An event loop is committing a lone write itself: the writer takes nothing meanwhile.
        var isLoopCommitting = false
        /// What is queued is the writer's to take.
        var isPublished = false
    }

    enum Leader: Equatable {
        /// Nobody: the next caller to queue leads.
        case nobody
        /// A caller is draining the queue on its thread.
        case caller
        case writer(Writer)
    }

    private(set) var leader = Leader.nobody
    /// How many submissions the last group held (the writer's top-up wait and the loop's lone
    /// write look at it).
    private(set) var lastGroupWrites = 0

    var hasWriter: Bool {
        if case .writer = leader { return true }
        return false
    }

    // MARK: Events from submitters

    /// What a submitter does after queueing.
    enum Queued: Equatable {
        case nothing
        /// It leads: it commits once it has released the archive's lock (``GroupCommitter/lead()``).
        case lead
        /// It signals the idle writer.
        case wakeWriter
    }

    /// Work was queued. `isWaitedOn`: its caller waits on a completion (an event loop's writes
    /// are not: the loop publishes its whole turn at once, so the writer's group is a turn).
    mutating func queued(isWaitedOn: Bool) -> Queued {
        switch leader {
        case .nobody:
            leader = .caller
            return .lead
        case .caller:
            return .nothing
        case .writer(var writer):
            guard isWaitedOn else { return .nothing }
            writer.isPublished = true
            let wake = Self.wake(&writer)
            leader = .writer(writer)
            return wake ? .wakeWriter : .nothing
        }
    }

    /// A test takes the leadership before queueing, to gather a group: whether it got it.
    mutating func acquire() -> Bool {
        guard leader == .nobody else { return false }
        leader = .caller
        return true
    }

    /// The leading caller found the queue empty: it lets go.
    mutating func callerFoundNothing() {
        precondition(leader == .caller, "only a leading caller drains the queue")
        leader = .nobody
    }

    // MARK: Events from the event loop

    enum Turn: Equatable {
        case nothing
        /// The loop commits the one queued write itself, with no thread hop.
        case commitHere
        case wakeWriter
    }

    /// An event loop's turn ended with `queued` submissions waiting; `gathering` is the group
    /// they would be, and the loop has heard of every group up to `deliveredThrough`.
    mutating func turnEnded(queued: Int, gathering: UInt64, deliveredThrough: UInt64) -> Turn {
        guard case .writer(var writer) = leader, !writer.isLoopCommitting, queued > 0 else { return .nothing }
        defer { leader = .writer(writer) }
        // A lone write, when the last group was lone too and every group taken so far is
        // finished and told: the writer has nothing in hand, and no failure of an earlier group
        // can reach the loop after this one's success.
        if queued == 1, lastGroupWrites <= 1, gathering == deliveredThrough + 1, !writer.isStopping {
            writer.isLoopCommitting = true
            return .commitHere
        }
        writer.isPublished = true
        return Self.wake(&writer) ? .wakeWriter : .nothing
    }

    /// The loop committed its lone write; `workLeft`: others queued meanwhile. Whether to wake
    /// the writer, which took nothing meanwhile.
    mutating func loopCommitted(workLeft: Bool) -> Bool {
        guard case .writer(var writer) = leader else { preconditionFailure("only with a writer") }
        defer { leader = .writer(writer) }
        writer.isLoopCommitting = false
        return workLeft && Self.wake(&writer)
    }

    // MARK: Events from the writer

    /// The writer starts: it leads from now on.
    mutating func writerStarted() {
        precondition(leader == .nobody, "the writer starts before any write")
        leader = .writer(Writer())
    }

    /// The writer is to stop once nothing is left: whether one runs (then the caller wakes it).
    mutating func stopRequested() -> Bool {
        guard case .writer(var writer) = leader else { return false }
        writer.isStopping = true
        leader = .writer(writer)
        return true
    }

    enum WriterStep: Equatable {
        case take
        /// Waits for a wake-up, or until then.
        case wait(until: DispatchTime?)
        case stop
    }

    /// What the writer does next, with `queued` submissions waiting, at `now`.
    ///
    /// When fewer writes are queued than the last group held, it waits a little for the rest
    /// (`patience`: a quarter of the last sync, at most 2 ms; `deadline` keeps the end of that
    /// wait across wake-ups): right after a sync the loop is still reading the requests its
    /// replies set off, and a group taken at the first of them would leave the others a whole
    /// sync behind. A lone writer (the last group held one) never waits.
    mutating func writerLooks(
        queued: Int, now: DispatchTime, patience: UInt64, deadline: inout DispatchTime?
    ) -> WriterStep {
        guard case .writer(var writer) = leader else { preconditionFailure("only with a writer") }
        defer { leader = .writer(writer) }
        if writer.isLoopCommitting {
            writer.isIdle = true
            return .wait(until: nil)
        }
        if writer.isPublished {
            let topUpBy = deadline ?? now + .nanoseconds(Int(patience))
            deadline = topUpBy
            if queued < lastGroupWrites, !writer.isStopping, now < topUpBy {
                writer.isIdle = true
                return .wait(until: topUpBy)
            }
            writer.isIdle = false
            return .take
        }
        if writer.isStopping { return queued == 0 ? .stop : .take }
        writer.isIdle = true
        return .wait(until: nil)
    }

    // MARK: Events from the committer

    /// A group of `writes` submissions was taken; `leftPublished`: writes it left for the next
    /// group (its cap) are the writer's to take at once.
    mutating func took(writes: Int, leftPublished: Bool) {
        lastGroupWrites = writes
        if case .writer(var writer) = leader {
            writer.isPublished = leftPublished
            leader = .writer(writer)
        }
    }

    /// Marks an idle writer as woken: true when the caller must signal it.
    private static func wake(_ writer: inout Writer) -> Bool {
        guard writer.isIdle else { return false }
        writer.isIdle = false
        return true
    }
}
