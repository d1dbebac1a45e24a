import Dispatch
import Synchronization
import WaterSync

/// What the committer needs of an archive; ``Archive`` is the one implementation.
protocol CommitTarget: AnyObject, Sendable {
    /// The archive's key in the shared log (``ArchiveKey``).
    var key: UInt64 { get }
    func isCurrent(epoch: UInt64) -> Bool
    /// Its records up to `sequence` are on disk, in a frame ending at `position`; `bytes` of
    /// the log are its own since the last call.
    func markDurable(through sequence: UInt64, at position: LogPosition, bytes: Int)
    func rollBack(_ error: ArchiveError)
}

/// One caller's submission: records for one archive (in the committer's pending buffer), and
/// who to tell when they are durable.
struct CommitItem: Sendable, RecordRun {
    let target: any CommitTarget
    let epoch: UInt64
    let firstSequence: UInt64
    let recordCount: Int
    /// Where its records are in the pending buffer, each length-prefixed.
    let bytes: Range<Int>
    /// Who to tell, when the submitter waits for it (the event loop, which answers once the
    /// write's group is durable, passes none: no closure per request).
    let complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?
}

/// Makes writes durable in groups, across all archives, through one shared log.
///
/// ## Ownership and order (the rule every write follows)
///
/// - **Numbering and queueing are one step.** An archive numbers a write's records and puts
///   them in this committer's queue inside the same critical section of that archive's lock
///   (``Archive/commit(_:result:completion:)`` calls ``enqueue(_:epoch:firstSequence:records:complete:)``
///   there). So, for every archive, the queue holds its records in sequence order, whatever the
///   number of connections and threads writing it.
/// - **One leader at a time drains the queue**, a whole group at a time: it takes everything
///   queued, writes it as one frame of the shared log (each submission a chunk, in queue
///   order), syncs the log once, and only then completes the group's callers and takes the
///   next group. So records reach the log in the order they were numbered, and a reply never
///   reports a write that is not on disk.
/// - **The leader owns the log's writing end** (``WriteAheadLog``): appends, syncs,
///   rotations and roll-backs happen on its thread only, and so does any task given to
///   ``perform(_:)``.
///
/// Who leads: a server starts a writer of its own (``startWriter(onGroup:)``), a thread that
/// leads for good: at the end of each of the event loop's turns it takes whatever is queued as
/// one group, writes and syncs it while the loop goes on taking the next requests, and then
/// takes everything queued meanwhile as the next group, so a slow sync (an SD card's) is shared
/// by every request that arrived during it. The groups are numbered; the loop holds each reply
/// until the group holding everything it showed is durable (``lastQueuedGroup``). A lone write
/// with nothing else going on is committed by the loop itself, with no thread hop
/// (``publishTurn(deliveredThrough:)``), and so is, without a writer (tools, tests), any write
/// by the caller that finds the committer idle. A leader drains everything queued, including
/// what arrives while it commits, before it lets go.
public final class GroupCommitter: Sendable {
    /// A queued submission: a write, or a task to run between two groups.
    enum Work {
        case write(CommitItem)
        case task(@Sendable () -> Void)

        /// What ``GroupCap`` weighs of it.
        var submission: GroupCap.Submission {
            switch self {
            case .write(let item):
                GroupCap.Submission(
                    bytes: item.bytes.count, archive: ObjectIdentifier(item.target), hasCompletion: item.complete != nil
                )
            case .task: GroupCap.Submission(bytes: 0, archive: nil, hasCompletion: true)
            }
        }
    }

    struct Pending {
        var work: [Work] = []
        /// The records of the queued writes, one after another.
        var records = RecordWriter()
        /// The number the group being gathered will have.
        var gathering: UInt64 = 1
        /// Who commits, and when.
        var leadership = CommitLeadership()
    }

    /// What the leader reuses from group to group, so that a group allocates nothing once they
    /// have grown to size: the records and work it took, the frame, the chunks and the archives.
    struct Scratch {
        var records: [UInt8] = []
        var work: [Work] = []
        var frame: [UInt8] = []
        var chunks: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
        var current: [CommitItem] = []
        var written: [(target: any CommitTarget, last: UInt64, bytes: Int)] = []
        /// The archives whose writes in the group being committed were not stored.
        var lost: [ArchiveEpoch] = []
        /// How long the last sync took, for the writer's top-up wait.
        var lastSyncNanoseconds: UInt64 = 0
    }

    let log: WriteAheadLog
    /// Who hears of writes besides their callers, once they are durable (``GroupNotice``).
    public let notices = DurableNotices()
    let pending = Locked(Pending())
    /// The newest group anything was queued for (0: none yet), writes the group's cap moved to
    /// the next group included: written under `pending`'s lock, read without it by the loop
    /// after every handler's reply (``lastQueuedGroup``).
    let newestQueued = Atomic<UInt64>(0)
    let scratch = Locked(Scratch())
    let statistics = Locked(Statistics())
    /// How long each group's fdatasync took (failed ones too), for `/metrics`: atomics the
    /// writer adds to, without a lock.
    public let syncDurations = DurationHistograms()
    /// Rung when work arrives for an idle writer, and when the writer has stopped.
    private let writerWakeup = DispatchSemaphore(value: 0)
    private let writerStopped = DispatchSemaphore(value: 0)

    /// How much grouping happened, for the benchmark and the status page.
    public struct Statistics: Sendable {
        public var groups = 0
        public var items = 0
        public var syncs = 0
        public var failures = 0
        /// Writes left for the next group by the group's cap (``GroupCap``).
        public var deferredWrites = 0
    }

    init(log: WriteAheadLog) {
        self.log = log
    }

    public var currentStatistics: Statistics { statistics.withLock { $0 } }

    /// The most records a write may have to be encoded inside the queue's lock.
    static let largestWriteEncodedInPlace = 64

    /// Queues a write of `target`'s records, which `records` appends (each one through
    /// ``RecordWriter/append(_:)``). Call it while holding the lock under which the records
    /// were numbered, and nothing else.
    /// - Returns: whether the caller must lead (then it calls ``lead()`` once it has released
    ///   that lock: the leader takes archives' locks), and the group the write was queued for.
    ///   A write with no completion stays in that group (``GroupCap``); one with a completion
    ///   may move to a later one, and is told by its completion.
    func enqueue(
        _ target: any CommitTarget, epoch: UInt64, firstSequence: UInt64, recordCount: Int,
        records: (inout RecordWriter) -> Void, complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?
    ) -> (mustLead: Bool, group: UInt64) {
        // A large write (an Import's thousands of records) is encoded before the queue's lock is
        // taken, which every other writer and the event loop's turn take too; a small one (every
        // call's) in place, with no buffer of its own. Still under the archive's lock, so the
        // order of its records is the order they were numbered in.
        var aside: RecordWriter?
        if recordCount > Self.largestWriteEncodedInPlace {
            var writer = RecordWriter()
            records(&writer)
            aside = writer
        }
        let (mustLead, wake, group) = pending.withLock { pending -> (Bool, Bool, UInt64) in
            let start = pending.records.bytes.count
            if let aside {
                pending.records.bytes += aside.bytes
            } else {
                records(&pending.records)
            }
            pending.work.append(
                .write(
                    CommitItem(
                        target: target, epoch: epoch, firstSequence: firstSequence, recordCount: recordCount,
                        bytes: start..<pending.records.bytes.count, complete: complete)))
            let (mustLead, wake) = queued(&pending, isWaitedOn: complete != nil)
            return (mustLead, wake, pending.gathering)
        }
        if wake { writerWakeup.signal() }
        return (mustLead, group)
    }

    /// After work joins the queue: whether the caller must lead, and whether to wake the writer.
    /// A write that nobody waits for (an event loop's, answered once its group is durable) wakes
    /// no writer: the loop publishes its whole turn at once (``publishTurn(deliveredThrough:)``),
    /// so that the writer's group is a turn, not the turn's first request.
    private func queued(_ pending: inout Pending, isWaitedOn: Bool) -> (mustLead: Bool, wakeWriter: Bool) {
        newestQueued.store(pending.gathering, ordering: .releasing)
        let action = pending.leadership.queued(isWaitedOn: isWaitedOn)
        return (action == .lead, action == .wakeWriter)
    }

    /// What became of a turn's writes (``publishTurn(deliveredThrough:)``).
    public enum Publication: Sendable, Equatable {
        /// Nothing was queued, or the writer has it: its group's end comes through `onGroup`.
        case handedToWriter
        /// Committed on the caller's thread, which `onGroup` is not told of.
        case committedHere(GroupOutcome)
    }

    /// An event loop's turn has queued all its writes: they go to the writer, woken now, as one
    /// group. Or, for a lone writer, the loop commits them itself: when the turn queued one
    /// write and nothing else waits, the last group held one write too, and the loop has heard
    /// of every group taken before (`deliveredThrough`, the newest group it was told of: so the
    /// writer has none in hand, and no failure of an earlier group can reach the loop after
    /// this one's success).
    /// Then one sync serves it with no thread hop either way, as a family's lone phone logging
    /// a glass; under load the writer is busy or groups are larger, and the loop never blocks.
    public func publishTurn(deliveredThrough: UInt64) -> Publication {
        let turn = pending.withLock { pending in
            pending.leadership.turnEnded(
                queued: pending.work.count, gathering: pending.gathering, deliveredThrough: deliveredThrough)
        }
        if turn == .wakeWriter { writerWakeup.signal() }
        guard turn == .commitHere else { return .handedToWriter }
        let outcome = scratch.withLock { scratch -> GroupOutcome in
            let group = pending.withLock { take(&$0, into: &scratch) }
            return GroupOutcome(group: group, lost: run(&scratch))
        }
        // What other threads queued meanwhile waits for the writer, which did not take it.
        let wake = pending.withLock { pending in pending.leadership.loopCommitted(workLeft: !pending.work.isEmpty) }
        if wake { writerWakeup.signal() }
        return .committedHere(outcome)
    }

    /// The newest group anything has been queued for so far: a reply that showed what was
    /// queued by now leaves once this group is durable. 0 when nothing was ever queued.
    public var lastQueuedGroup: UInt64 {
        newestQueued.load(ordering: .acquiring)
    }

    /// Starts the writer: a thread of its own that leads from now on, a group at a time, and
    /// tells `onGroup` (on its thread) what became of each group once it is durable, or failed
    /// (then the writes it names were rolled back, or were refused for an earlier failure of
    /// their archive). Submitters never lead again.
    public func startWriter(onGroup: @escaping @Sendable (GroupOutcome) -> Void) {
        pending.withLock { $0.leadership.writerStarted() }
        DispatchQueue(label: "water.log-writer", qos: .userInitiated).async { [self] in
            var deadline: DispatchTime?
            while true {
                let step = scratch.withLock { scratch -> WriterStep in
                    switch nextStepForWriter(&scratch, topUpBy: &deadline) {
                    case .group(let group): return .ran(GroupOutcome(group: group, lost: run(&scratch)))
                    case let other: return other
                    }
                }
                switch step {
                case .ran(let outcome):
                    deadline = nil
                    onGroup(outcome)
                case .stop:
                    writerStopped.signal()
                    return
                case .wait(let until):
                    // A wake-up that comes late (after the deadline, or for work already
                    // taken) only costs one more look at the queue.
                    if let until { _ = writerWakeup.wait(timeout: until) } else { writerWakeup.wait() }
                case .group: preconditionFailure("a group taken is run at once")
                }
            }
        }
    }

    /// Stops the writer once everything queued is committed.
    public func stopWriter() {
        let running = pending.withLock { $0.leadership.stopRequested() }
        guard running else { return }
        writerWakeup.signal()
        writerStopped.wait()
    }

    private enum WriterStep {
        case group(UInt64)
        case ran(GroupOutcome)
        case wait(until: DispatchTime?)
        case stop
    }

    /// What the writer does next (``CommitLeadership/writerLooks(queued:now:patience:deadline:)``):
    /// take a group into `scratch`, wait (for work, or until `topUpBy`), or stop.
    private func nextStepForWriter(_ scratch: inout Scratch, topUpBy deadline: inout DispatchTime?) -> WriterStep {
        let now = DispatchTime.now()
        let patience = min(scratch.lastSyncNanoseconds / 4, 2_000_000)
        return pending.withLock { pending -> WriterStep in
            switch pending.leadership.writerLooks(
                queued: pending.work.count, now: now, patience: patience, deadline: &deadline)
            {
            case .take: .group(take(&pending, into: &scratch))
            case .wait(let until): .wait(until: until)
            case .stop: .stop
            }
        }
    }

    /// Runs `body` on the leader's thread, after everything queued before it is committed and
    /// before anything queued later. Leads on this thread when the committer is idle.
    /// - Returns: the group it runs in, and whether a writer leads (then the event loop tells of
    ///   that group, not the leader).
    @discardableResult
    func perform(_ body: @escaping @Sendable () -> Void) -> (group: UInt64, hasWriter: Bool) {
        let (mustLead, wake, group, hasWriter) = pending.withLock { pending -> (Bool, Bool, UInt64, Bool) in
            pending.work.append(.task(body))
            let (mustLead, wake) = queued(&pending, isWaitedOn: true)
            return (mustLead, wake, pending.gathering, pending.leadership.hasWriter)
        }
        if wake { writerWakeup.signal() }
        if mustLead { lead() }
        return (group, hasWriter)
    }

    /// Waits until everything submitted so far has been committed or failed. Without a writer
    /// (tools, tests), also until everyone waiting to hear of those groups (``notices``) has
    /// been told: the leader tells of a group after running its tasks, so a task's end alone
    /// does not say that. With a writer the event loop tells, and may be what calls this.
    public func flush() {
        let done = DispatchSemaphore(value: 0)
        let (group, hasWriter) = perform { done.signal() }
        done.wait()
        guard !hasWriter else { return }
        // Runs after every notice registered for the group before it (``DurableNotices``).
        let told = DispatchSemaphore(value: 0)
        notices.after(group) { _ in told.signal() }
        told.wait()
    }

    /// Takes the leadership if nobody holds it: until ``lead()``, submissions only queue (a
    /// test gathers a group so). Returns false when another thread leads; it then commits what
    /// this thread queues.
    public func acquireLeadership() -> Bool {
        pending.withLock { $0.leadership.acquire() }
    }

    /// Commits everything queued, a group at a time, on this thread, until nothing is left;
    /// then gives up the leadership. Only the leader calls it.
    /// - Returns: false when any group failed (its writes were rolled back and their
    ///   submitters told).
    @discardableResult
    public func lead() -> Bool {
        var succeeded = true
        while let outcome = commitNextGroup() {
            succeeded = outcome.succeeded && succeeded
            // No writer, no event loop: the leader tells of its groups itself.
            notices.finished(outcome.group, succeeded: outcome.succeeded)
        }
        return succeeded
    }

    /// Commits everything queued as one group, on this thread, and says what became of it; nil,
    /// giving up the leadership, when nothing is queued. Only the leader calls it.
    func commitNextGroup() -> GroupOutcome? {
        scratch.withLock { scratch -> GroupOutcome? in
            guard let group = takePending(&scratch) else { return nil }
            return GroupOutcome(group: group, lost: run(&scratch))
        }
    }

    /// Takes everything queued into `scratch` and returns its group's number; nil, giving up
    /// the leadership, when nothing is queued.
    private func takePending(_ scratch: inout Scratch) -> UInt64? {
        pending.withLock { pending in
            guard !pending.work.isEmpty else {
                pending.leadership.callerFoundNothing()
                return nil
            }
            return take(&pending, into: &scratch)
        }
    }

}
