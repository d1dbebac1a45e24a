import Dispatch
import WaterLog
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
    let complete: @Sendable (Result<Void, ArchiveError>) -> Void

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
        var records: [UInt8] = []
        /// A leader is draining: later submissions only queue.
        var isLeading = false
    }

    /// What the leader reuses from group to group: the records it took, and the frame.
    private struct Scratch {
        var records: [UInt8] = []
        var frame: [UInt8] = []
        var chunks: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
    }

    let log: WriteAheadLog
    private let pending = Locked(Pending())
    private let scratch = Locked(Scratch())
    private let statistics = Locked(Statistics())

    /// How much grouping happened, for the benchmark and the status page.
    public struct Statistics: Sendable {
        public var groups = 0
        public var items = 0
        public var syncs = 0
    }

    init(log: WriteAheadLog) {
        self.log = log
    }

    public var currentStatistics: Statistics { statistics.withLock { $0 } }

    /// Queues a write of `target`'s records, which `records` appends (each length-prefixed,
    /// ``LogFrame/appendRecord(_:to:)``) to the buffer it is given. Call it while holding the
    /// lock under which the records were numbered, and nothing else.
    /// - Returns: whether the caller must lead: then it calls ``lead()`` once it has released
    ///   that lock (the leader takes archives' locks).
    func enqueue(
        _ target: any CommitTarget, epoch: UInt64, firstSequence: UInt64, recordCount: Int,
        records: (inout [UInt8]) -> Void, complete: @escaping @Sendable (Result<Void, ArchiveError>) -> Void
    ) -> Bool {
        pending.withLock { pending in
            let start = pending.records.count
            records(&pending.records)
            pending.work.append(
                .write(
                    CommitItem(
                        target: target, epoch: epoch, firstSequence: firstSequence, recordCount: recordCount,
                        bytes: start..<pending.records.count, complete: complete)))
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

    /// Commits everything queued, a group at a time, on this thread, until nothing is left;
    /// then gives up the leadership. Only the leader calls it.
    public func lead() {
        scratch.withLock { scratch in
            while let work = takePending(&scratch.records) {
                run(work, &scratch)
            }
        }
    }

    /// Everything queued, with its records swapped into `records` (so both buffers keep their
    /// capacity); nil, giving up the leadership, when nothing is queued.
    private func takePending(_ records: inout [UInt8]) -> [Work]? {
        pending.withLock { pending in
            guard !pending.work.isEmpty else {
                pending.isLeading = false
                return nil
            }
            records.removeAll(keepingCapacity: true)
            swap(&records, &pending.records)
            defer { pending.work.removeAll(keepingCapacity: true) }
            return pending.work
        }
    }

    /// Commits the writes in `work` as groups, running each task at its place in the order.
    private func run(_ work: [Work], _ scratch: inout Scratch) {
        var group: [CommitItem] = []
        for item in work {
            switch item {
            case .write(let write):
                group.append(write)
            case .task(let body):
                if !group.isEmpty { commit(group, &scratch) }
                group.removeAll()
                body()
            }
        }
        if !group.isEmpty { commit(group, &scratch) }
    }

    private func commit(_ items: [CommitItem], _ scratch: inout Scratch) {
        var current: [CommitItem] = []
        var failures: [(CommitItem, ArchiveError)] = []
        for item in items {
            guard item.target.isCurrent(epoch: item.epoch) else {
                failures.append(
                    (item, ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
                continue
            }
            current.append(item)
        }
        scratch.chunks.removeAll(keepingCapacity: true)
        for item in current where item.recordCount > 0 {
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
        }

        switch outcome {
        case .success(let end):
            // Once per archive, with everything of it the frame holds: a snapshot it starts then
            // stands at the frame's end, so it must hold every record of the archive up to there.
            if let end {
                var written: [ObjectIdentifier: (target: any CommitTarget, last: UInt64, bytes: Int)] = [:]
                var order: [ObjectIdentifier] = []
                for item in current where item.recordCount > 0 {
                    let id = ObjectIdentifier(item.target)
                    if written[id] == nil { order.append(id) }
                    let previous = written[id]
                    written[id] = (
                        item.target, max(previous?.last ?? 0, item.lastSequence),
                        (previous?.bytes ?? 0) + item.bytes.count
                    )
                }
                for id in order {
                    let archive = written[id]!
                    archive.target.markDurable(through: archive.last, at: end, bytes: archive.bytes)
                }
            }
            for item in current { item.complete(.success(())) }
        case .failure(let error):
            // Nothing of the frame is known to be on disk: every archive in it goes back to
            // its durable state, and everything queued on top of that fails with it.
            // A submission with no records fails with them when its archive had any there (it
            // waited for them); another archive's succeeds.
            var rolledBack = Set<ObjectIdentifier>()
            for item in current where item.recordCount > 0 {
                if rolledBack.insert(ObjectIdentifier(item.target)).inserted { item.target.rollBack(error) }
            }
            for item in current {
                if rolledBack.contains(ObjectIdentifier(item.target)) {
                    failures.append((item, error))
                } else {
                    item.complete(.success(()))
                }
            }
        }
        for (item, error) in failures { item.complete(.failure(error)) }
    }
}
