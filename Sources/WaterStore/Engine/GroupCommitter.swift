import Dispatch
import Synchronization
import WaterProtocol
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
struct CommitItem: Sendable {
    let target: any CommitTarget
    let epoch: UInt64
    let firstSequence: UInt64
    let recordCount: Int
    /// Where its records are in the pending buffer, each length-prefixed.
    let bytes: Range<Int>
    /// Who to tell, when the submitter waits for it (the event loop, which answers once the
    /// write's group is durable, passes none: no closure per request).
    let complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?

    var lastSequence: UInt64 { firstSequence + UInt64(recordCount) - 1 }
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
    private enum Work {
        case write(CommitItem)
        case task(@Sendable () -> Void)
    }

    private struct Pending {
        var work: [Work] = []
        /// The records of the queued writes, one after another.
        var records = RecordWriter()
        /// A leader is draining: later submissions only queue.
        var isLeading = false
        /// The number the group being gathered will have.
        var gathering: UInt64 = 1
        /// The writer thread's, when one runs: whether it waits for work, and whether to stop.
        var hasWriter = false
        var isWriterIdle = false
        var isStopping = false
        /// An event loop commits a lone write itself (``publishTurn(deliveredThrough:)``): the
        /// writer takes nothing meanwhile.
        var isLoopCommitting = false
        /// How many submissions the last group held.
        var lastGroupWrites = 0
        /// Whether what is queued is the writer's to take: a loop's writes are once its turn
        /// has ended (``publishTurn(deliveredThrough:)``), anyone else's at once.
        var isPublished = false

        /// Marks an idle writer as woken: true when the caller must signal it.
        mutating func wakeWriter() -> Bool {
            guard isWriterIdle else { return false }
            isWriterIdle = false
            return true
        }
    }

    /// What the leader reuses from group to group, so that a group allocates nothing once they
    /// have grown to size: the records and work it took, the frame, the chunks and the archives.
    private struct Scratch {
        var records: [UInt8] = []
        var work: [Work] = []
        var frame: [UInt8] = []
        var chunks: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
        var current: [CommitItem] = []
        var written: [(target: any CommitTarget, last: UInt64, bytes: Int)] = []
        /// How long the last sync took, for the writer's top-up wait.
        var lastSyncNanoseconds: UInt64 = 0
    }

    let log: WriteAheadLog
    private let pending = Locked(Pending())
    /// The newest group anything was queued for (0: none yet): written under `pending`'s lock,
    /// read without it by the loop after every handler's reply (``lastQueuedGroup``).
    private let newestQueued = Atomic<UInt64>(0)
    private let scratch = Locked(Scratch())
    private let statistics = Locked(Statistics())
    /// Rung when work arrives for an idle writer, and when the writer has stopped.
    private let writerWakeup = DispatchSemaphore(value: 0)
    private let writerStopped = DispatchSemaphore(value: 0)

    /// How much grouping happened, for the benchmark and the status page.
    public struct Statistics: Sendable {
        public var groups = 0
        public var items = 0
        public var syncs = 0
        public var failures = 0
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
    /// - Returns: whether the caller must lead: then it calls ``lead()`` once it has released
    ///   that lock (the leader takes archives' locks).
    func enqueue(
        _ target: any CommitTarget, epoch: UInt64, firstSequence: UInt64, recordCount: Int,
        records: (inout RecordWriter) -> Void, complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?
    ) -> Bool {
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
        let (mustLead, wake) = pending.withLock { pending -> (Bool, Bool) in
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
            return queued(&pending, wakesWriter: complete != nil)
        }
        if wake { writerWakeup.signal() }
        return mustLead
    }

    /// After work joins the queue: whether the caller must lead, and whether to wake the writer.
    /// A write that nobody waits for (an event loop's, answered once its group is durable) wakes
    /// no writer: the loop publishes its whole turn at once (``publishTurn(deliveredThrough:)``),
    /// so that the writer's group is a turn, not the turn's first request.
    private func queued(_ pending: inout Pending, wakesWriter: Bool) -> (mustLead: Bool, wakeWriter: Bool) {
        newestQueued.store(pending.gathering, ordering: .releasing)
        if pending.hasWriter {
            guard wakesWriter else { return (false, false) }
            pending.isPublished = true
            return (false, pending.wakeWriter())
        }
        defer { pending.isLeading = true }
        return (!pending.isLeading, false)
    }

    /// What became of a turn's writes (``publishTurn(deliveredThrough:)``).
    public enum Publication: Sendable, Equatable {
        /// Nothing was queued, or the writer has it: its group's end comes through `onGroup`.
        case handedToWriter
        /// Committed on the caller's thread as group `group`, which `onGroup` is not told of.
        case committedHere(group: UInt64, succeeded: Bool)
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
        let step = pending.withLock { pending -> (wake: Bool, commitHere: Bool) in
            guard pending.hasWriter, !pending.isLoopCommitting, !pending.work.isEmpty else { return (false, false) }
            // Every group taken so far is finished and told: the writer has nothing in hand (and
            // takes nothing while the loop commits).
            if pending.work.count == 1, pending.lastGroupWrites <= 1, pending.gathering == deliveredThrough + 1,
                !pending.isStopping
            {
                pending.isLoopCommitting = true
                return (false, true)
            }
            pending.isPublished = true
            return (pending.wakeWriter(), false)
        }
        if step.wake { writerWakeup.signal() }
        guard step.commitHere else { return .handedToWriter }
        let (group, succeeded) = scratch.withLock { scratch -> (UInt64, Bool) in
            let group = pending.withLock { take(&$0, into: &scratch) }
            return (group, run(&scratch))
        }
        // What other threads queued meanwhile waits for the writer, which did not take it.
        let wake = pending.withLock { pending -> Bool in
            pending.isLoopCommitting = false
            return !pending.work.isEmpty && pending.wakeWriter()
        }
        if wake { writerWakeup.signal() }
        return .committedHere(group: group, succeeded: succeeded)
    }

    /// The newest group anything has been queued for so far: a reply that showed what was
    /// queued by now leaves once this group is durable. 0 when nothing was ever queued.
    public var lastQueuedGroup: UInt64 {
        newestQueued.load(ordering: .acquiring)
    }

    /// Starts the writer: a thread of its own that leads from now on, a group at a time, and
    /// tells `onGroup` (on its thread) each group's number once it is durable, or failed (then
    /// its writes were rolled back, or were refused for an earlier failure). Submitters never
    /// lead again.
    public func startWriter(onGroup: @escaping @Sendable (_ group: UInt64, _ succeeded: Bool) -> Void) {
        pending.withLock { pending in
            precondition(!pending.hasWriter && !pending.isLeading, "the writer starts before any write")
            pending.hasWriter = true
            pending.isLeading = true
        }
        DispatchQueue(label: "water.log-writer", qos: .userInitiated).async { [self] in
            var deadline: DispatchTime?
            while true {
                let step = scratch.withLock { scratch -> WriterStep in
                    switch nextStepForWriter(&scratch, topUpBy: &deadline) {
                    case .group(let group): return .ran(group, run(&scratch))
                    case let other: return other
                    }
                }
                switch step {
                case .ran(let group, let succeeded):
                    deadline = nil
                    onGroup(group, succeeded)
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
        let running = pending.withLock { pending -> Bool in
            guard pending.hasWriter else { return false }
            pending.isStopping = true
            return true
        }
        guard running else { return }
        writerWakeup.signal()
        writerStopped.wait()
    }

    private enum WriterStep {
        case group(UInt64)
        case ran(UInt64, Bool)
        case wait(until: DispatchTime?)
        case stop
    }

    /// What the writer does next: take a group into `scratch`, wait (for work, or until
    /// `topUpBy`), or stop, once it is to stop and nothing is left.
    ///
    /// When fewer writes are queued than the last group held, it waits a little for the rest
    /// (a quarter of the last sync, at most 2 ms): right after a sync the loop is still reading
    /// the requests its replies set off, and a group taken at the first of them would leave the
    /// others a whole sync behind. A lone writer (the last group held one) never waits.
    private func nextStepForWriter(_ scratch: inout Scratch, topUpBy deadline: inout DispatchTime?) -> WriterStep {
        let now = DispatchTime.now()
        let patience = min(scratch.lastSyncNanoseconds / 4, 2_000_000)
        return pending.withLock { pending -> WriterStep in
            if pending.isLoopCommitting {
                pending.isWriterIdle = true
                return .wait(until: nil)
            }
            if pending.isPublished {
                let topUpBy = deadline ?? now + .nanoseconds(Int(patience))
                deadline = topUpBy
                if pending.work.count < pending.lastGroupWrites, !pending.isStopping, now < topUpBy {
                    pending.isWriterIdle = true
                    return .wait(until: topUpBy)
                }
                pending.isWriterIdle = false
                return .group(take(&pending, into: &scratch))
            }
            if pending.isStopping { return pending.work.isEmpty ? .stop : .group(take(&pending, into: &scratch)) }
            pending.isWriterIdle = true
            return .wait(until: nil)
        }
    }

    /// Moves everything queued into `scratch` as the group being gathered (swapped, so that
    /// both sides keep their buffers' capacity) and returns its number.
    private func take(_ pending: inout Pending, into scratch: inout Scratch) -> UInt64 {
        scratch.records.removeAll(keepingCapacity: true)
        swap(&scratch.records, &pending.records.bytes)
        scratch.work.removeAll(keepingCapacity: true)
        swap(&scratch.work, &pending.work)
        pending.lastGroupWrites = scratch.work.count
        pending.isPublished = false
        defer { pending.gathering += 1 }
        return pending.gathering
    }

    /// Runs `body` on the leader's thread, after everything queued before it is committed and
    /// before anything queued later. Leads on this thread when the committer is idle.
    func perform(_ body: @escaping @Sendable () -> Void) {
        let (mustLead, wake) = pending.withLock { pending -> (Bool, Bool) in
            pending.work.append(.task(body))
            return queued(&pending, wakesWriter: true)
        }
        if wake { writerWakeup.signal() }
        if mustLead { lead() }
    }

    /// Waits until everything submitted so far has been committed or failed.
    public func flush() {
        let done = DispatchSemaphore(value: 0)
        perform { done.signal() }
        done.wait()
    }

    /// Takes the leadership if nobody holds it: until ``lead()``, submissions only queue (a
    /// test gathers a group so). Returns false when another thread leads; it then commits what
    /// this thread queues.
    public func acquireLeadership() -> Bool {
        pending.withLock { pending in
            guard !pending.isLeading else { return false }
            pending.isLeading = true
            return true
        }
    }

    /// Commits everything queued, a group at a time, on this thread, until nothing is left;
    /// then gives up the leadership. Only the leader calls it.
    /// - Returns: false when any group failed (its writes were rolled back and their
    ///   submitters told).
    @discardableResult
    public func lead() -> Bool {
        scratch.withLock { scratch in
            var succeeded = true
            while takePending(&scratch) {
                succeeded = run(&scratch) && succeeded
            }
            return succeeded
        }
    }

    /// Takes everything queued into `scratch`; false, giving up the leadership, when nothing is
    /// queued.
    private func takePending(_ scratch: inout Scratch) -> Bool {
        pending.withLock { pending in
            guard !pending.work.isEmpty else {
                pending.isLeading = false
                return false
            }
            _ = take(&pending, into: &scratch)
            return true
        }
    }

    /// Commits the writes taken into `scratch` as groups, running each task at its place in the
    /// order; false when a group failed.
    private func run(_ scratch: inout Scratch) -> Bool {
        var succeeded = true
        var groupStart = 0
        for index in scratch.work.indices {
            guard case .task(let body) = scratch.work[index] else { continue }
            if groupStart < index { succeeded = commit(groupStart..<index, &scratch) && succeeded }
            groupStart = index + 1
            body()
        }
        if groupStart < scratch.work.count {
            succeeded = commit(groupStart..<scratch.work.count, &scratch) && succeeded
        }
        // Let go of the archives the group wrote now, not at the next group: an idle archive
        // must be held by nothing but its store to leave memory (``FileArchiveStore/dropIdleMembers()``).
        scratch.work.removeAll(keepingCapacity: true)
        scratch.current.removeAll(keepingCapacity: true)
        scratch.written.removeAll(keepingCapacity: true)
        return succeeded
    }

    /// Commits one group; false when any of its writes failed (a refusal for an earlier failure
    /// included: a reply that showed it must not say it was saved).
    private func commit(_ items: Range<Int>, _ scratch: inout Scratch) -> Bool {
        scratch.current.removeAll(keepingCapacity: true)
        var refusedStale = false
        for index in items {
            guard case .write(let item) = scratch.work[index] else { continue }
            guard item.target.isCurrent(epoch: item.epoch) else {
                item.complete?(
                    .failure(ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
                refusedStale = true
                continue
            }
            scratch.current.append(item)
        }
        scratch.chunks.removeAll(keepingCapacity: true)
        for item in scratch.current where item.recordCount > 0 {
            scratch.chunks.append((item.target.key, item.firstSequence, item.recordCount, item.bytes))
        }

        var outcome: Result<LogPosition?, ArchiveError> = .success(nil)
        if !scratch.chunks.isEmpty {
            scratch.records.withUnsafeBytes { records in
                LogFrame.encode(chunks: scratch.chunks, records: records, into: &scratch.frame)
            }
            do throws(FileSystemError) {
                let end = try log.append(scratch.frame, keys: scratch.chunks.lazy.map(\.key))
                let syncStart = DispatchTime.now().uptimeNanoseconds
                try log.sync()
                scratch.lastSyncNanoseconds = DispatchTime.now().uptimeNanoseconds - syncStart
                outcome = .success(end)
            } catch {
                log.rollBack()
                outcome = .failure(ArchiveError(error))
            }
        }
        statistics.withLock {
            $0.groups += 1
            $0.items += items.count
            $0.syncs += scratch.chunks.isEmpty ? 0 : 1
            if case .failure = outcome { $0.failures += 1 }
        }

        // Once per archive, with everything of it the frame holds: a snapshot it starts then
        // stands at the frame's end, so it must hold every record of the archive up to there.
        scratch.written.removeAll(keepingCapacity: true)
        for item in scratch.current where item.recordCount > 0 {
            if let index = scratch.written.firstIndex(where: { $0.target === item.target }) {
                scratch.written[index].last = max(scratch.written[index].last, item.lastSequence)
                scratch.written[index].bytes += item.bytes.count
            } else {
                scratch.written.append((item.target, item.lastSequence, item.bytes.count))
            }
        }
        switch outcome {
        case .success(let end):
            if let end {
                for archive in scratch.written {
                    archive.target.markDurable(through: archive.last, at: end, bytes: archive.bytes)
                }
            }
            for item in scratch.current { item.complete?(.success(())) }
            return !refusedStale
        case .failure(let error):
            // Nothing of the frame is known to be on disk: every archive in it goes back to
            // its durable state, and everything queued on top of that fails with it. A
            // submission with no records fails with them when its archive had any there (it
            // waited for them); another archive's succeeds.
            for archive in scratch.written { archive.target.rollBack(error) }
            for item in scratch.current {
                let failed = scratch.written.contains { $0.target === item.target }
                item.complete?(failed ? .failure(error) : .success(()))
            }
            return false
        }
    }
}

/// Where archives append their records for the next group: each one length-prefixed, packed
/// with protobuf-c straight into the buffer through an arena kept from record to record.
struct RecordWriter {
    /// The records so far; the committer's leader swaps them out for each group.
    var bytes: [UInt8] = []
    private let arena = WireArena(initialBlockSize: 1024)

    /// Appends one record.
    mutating func append(_ record: WaterArchiveV1.JournalRecord) {
        let start = bytes.count
        bytes.appendBigEndian(UInt32(0))
        let length = WireCodec.pack(record, appendingTo: &bytes, arena: arena)
        arena.reset()
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(length).bigEndian, toByteOffset: start, as: UInt32.self)
        }
    }
}
