import Dispatch
import WaterLog
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
    /// Who to tell, when the submitter waits for it (a caller the event loop answers for
    /// once its turn's commit is done passes none: no closure per request).
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
/// Who leads: an event loop takes the leadership for each of its turns
/// (``acquireLeadership()``), so a whole turn's writes share one sync; otherwise the caller
/// that finds the committer idle leads on its own thread (a lone writer then pays one fdatasync
/// and no thread hop). A leader drains everything queued, including what arrives while it
/// commits, before it lets go.
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
        /// Threads waiting to be handed the leadership (``acquireLeadershipWaiting()``).
        var waiting = 0
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
    }

    let log: WriteAheadLog
    private let pending = Locked(Pending())
    private let scratch = Locked(Scratch())
    private let statistics = Locked(Statistics())
    /// Rung when the leadership is handed to a waiting thread.
    private let handoff = DispatchSemaphore(value: 0)

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

    /// Queues a write of `target`'s records, which `records` appends (each one through
    /// ``RecordWriter/append(_:)``). Call it while holding the lock under which the records
    /// were numbered, and nothing else.
    /// - Returns: whether the caller must lead: then it calls ``lead()`` once it has released
    ///   that lock (the leader takes archives' locks).
    func enqueue(
        _ target: any CommitTarget, epoch: UInt64, firstSequence: UInt64, recordCount: Int,
        records: (inout RecordWriter) -> Void, complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?
    ) -> Bool {
        pending.withLock { pending in
            let start = pending.records.bytes.count
            records(&pending.records)
            pending.work.append(
                .write(
                    CommitItem(
                        target: target, epoch: epoch, firstSequence: firstSequence, recordCount: recordCount,
                        bytes: start..<pending.records.bytes.count, complete: complete)))
            defer { pending.isLeading = true }
            return !pending.isLeading
        }
    }

    /// Runs `body` on the leader's thread, after everything queued before it is committed and
    /// before anything queued later. Leads on this thread when the committer is idle.
    func perform(_ body: @escaping @Sendable () -> Void) {
        let mustLead = pending.withLock { pending in
            pending.work.append(.task(body))
            defer { pending.isLeading = true }
            return !pending.isLeading
        }
        if mustLead { lead() }
    }

    /// Waits until everything submitted so far has been committed or failed.
    public func flush() {
        let done = DispatchSemaphore(value: 0)
        perform { done.signal() }
        done.wait()
    }

    /// Takes the leadership if nobody holds it: until ``lead()``, submissions only queue (an
    /// event loop holds it through a turn). Returns false when another thread leads; it then
    /// commits what this thread queues.
    public func acquireLeadership() -> Bool {
        pending.withLock { pending in
            guard !pending.isLeading else { return false }
            pending.isLeading = true
            return true
        }
    }

    /// Takes the leadership, waiting for the thread that holds it to finish its commits (at most
    /// one sync) and hand it over. An event loop takes it so at the start of each turn: then
    /// everything its handlers can see is durable already or in its own group, and no reply of
    /// the turn shows a write that is not on disk when it leaves.
    public func acquireLeadershipWaiting() {
        let acquired = pending.withLock { pending in
            guard pending.isLeading else {
                pending.isLeading = true
                return true
            }
            pending.waiting += 1
            return false
        }
        if !acquired { handoff.wait() }
    }

    /// Commits everything queued, a group at a time, on this thread, until nothing is left;
    /// then gives up the leadership (to a waiting thread, if one waits). Only the leader calls
    /// it.
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

    /// Swaps everything queued into `scratch` (so both sides keep their buffers' capacity);
    /// false, giving up or handing over the leadership, when nothing is queued.
    private func takePending(_ scratch: inout Scratch) -> Bool {
        let handOver = pending.withLock { pending -> Bool? in
            guard pending.work.isEmpty else {
                scratch.records.removeAll(keepingCapacity: true)
                swap(&scratch.records, &pending.records.bytes)
                scratch.work.removeAll(keepingCapacity: true)
                swap(&scratch.work, &pending.work)
                return nil
            }
            guard pending.waiting > 0 else {
                pending.isLeading = false
                return false
            }
            pending.waiting -= 1
            return true
        }
        guard let handOver else { return true }
        if handOver { handoff.signal() }
        return false
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
        return succeeded
    }

    private func commit(_ items: Range<Int>, _ scratch: inout Scratch) -> Bool {
        scratch.current.removeAll(keepingCapacity: true)
        for index in items {
            guard case .write(let item) = scratch.work[index] else { continue }
            guard item.target.isCurrent(epoch: item.epoch) else {
                item.complete?(
                    .failure(ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
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
                try log.sync()
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
            return true
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
