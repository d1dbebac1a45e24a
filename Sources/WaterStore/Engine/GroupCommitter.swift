import Dispatch
import WaterLog
import WaterSync

/// What the committer needs of an archive; ``Archive`` is the one implementation.
protocol CommitTarget: AnyObject, Sendable {
    func isCurrent(epoch: UInt64) -> Bool
    func append(_ frame: [UInt8]) throws(ArchiveError) -> FileHandleID
    func markDurable(through sequence: UInt64)
    func rollBack(_ error: ArchiveError)
}

/// One caller's submission: records for one archive, and who to tell when they are durable.
struct CommitItem: Sendable {
    let target: any CommitTarget
    let epoch: UInt64
    /// Encoded journal records; none for a request that changed nothing but must not be
    /// answered before what came before it is durable.
    let records: [[UInt8]]
    let lastSequence: UInt64
    let complete: @Sendable (Result<Void, ArchiveError>) -> Void
}

/// Makes writes durable in groups, across all archives.
///
/// ## Ownership and order (the rule every write follows)
///
/// - **Numbering and queueing are one step.** An archive numbers a write's records and puts
///   them in this committer's queue inside the same critical section of that archive's lock
///   (``Archive/commit(_:result:completion:)`` calls ``enqueue(_:)`` there). So, for every
///   archive, the queue holds its records in sequence order, whatever the number of
///   connections and threads writing it.
/// - **One leader at a time drains the queue**, a whole group at a time: it takes everything
///   queued, writes one frame per archive with that archive's records in queue order, syncs
///   every journal touched once (``FileSystem/syncAll(_:)``), and only then completes the
///   group's callers and takes the next group. So records reach each journal in the order they
///   were numbered, and a reply never reports a write that is not on disk.
/// - **The leader owns the journals.** Open journal files, their lengths and each archive's
///   durable state change only on the leader's thread: appends, rotations, roll-backs, and any
///   task given to ``perform(_:)`` (closing, forced compaction). The background snapshot write
///   touches only the snapshot and journals already sealed.
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
        /// A leader is draining: later submissions only queue.
        var isLeading = false
    }

    private let fileSystem: any FileSystem
    private let pending = Locked(Pending())
    private let statistics = Locked(Statistics())

    /// How much grouping happened, for the benchmark and the status page.
    public struct Statistics: Sendable {
        public var groups = 0
        public var items = 0
        public var syncs = 0
    }

    public init(fileSystem: any FileSystem) {
        self.fileSystem = fileSystem
    }

    public var currentStatistics: Statistics { statistics.withLock { $0 } }

    /// Queues `item`. Call it while holding the lock under which the item's records were
    /// numbered, and nothing else.
    /// - Returns: whether the caller must lead: then it calls ``lead()`` once it has released
    ///   that lock (the leader takes archives' locks).
    func enqueue(_ item: CommitItem) -> Bool {
        enqueue(.write(item))
    }

    /// Runs `body` on the leader's thread, after everything queued before it is committed and
    /// before anything queued later. Leads on this thread when the committer is idle.
    func perform(_ body: @escaping @Sendable () -> Void) {
        if enqueue(.task(body)) { lead() }
    }

    /// Waits until everything submitted so far has been committed or failed.
    public func flush() {
        let done = DispatchSemaphore(value: 0)
        perform { done.signal() }
        done.wait()
    }

    private func enqueue(_ work: Work) -> Bool {
        pending.withLock { pending in
            pending.work.append(work)
            defer { pending.isLeading = true }
            return !pending.isLeading
        }
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
        repeat {
            run(takePending())
        } while !endTurn()
    }

    /// Everything queued, now.
    private func takePending() -> [Work] {
        pending.withLock { pending in
            defer { pending.work.removeAll(keepingCapacity: true) }
            return pending.work
        }
    }

    /// Ends a turn of leading when nothing is queued; returns false when more is waiting.
    private func endTurn() -> Bool {
        pending.withLock { pending in
            guard pending.work.isEmpty else { return false }
            pending.isLeading = false
            return true
        }
    }

    /// Commits the writes in `work` as groups, running each task at its place in the order.
    private func run(_ work: [Work]) {
        var group: [CommitItem] = []
        for item in work {
            switch item {
            case .write(let write):
                group.append(write)
            case .task(let body):
                if !group.isEmpty { commit(group) }
                group.removeAll()
                body()
            }
        }
        if !group.isEmpty { commit(group) }
    }

    private func commit(_ items: [CommitItem]) {
        // Group by archive, keeping each archive's submissions in queue (= sequence) order.
        var order: [ObjectIdentifier] = []
        var groups: [ObjectIdentifier: [CommitItem]] = [:]
        for item in items {
            let key = ObjectIdentifier(item.target)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(item)
        }

        var written: [(items: [CommitItem], handle: FileHandleID?)] = []
        var failures: [(CommitItem, ArchiveError)] = []
        for key in order {
            let group = groups[key]!
            let target = group[0].target
            let current = group.filter { target.isCurrent(epoch: $0.epoch) }
            for stale in group where !target.isCurrent(epoch: stale.epoch) {
                failures.append(
                    (stale, ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
            }
            let records = current.flatMap(\.records)
            if records.isEmpty {
                written.append((current, nil))
                continue
            }
            do {
                written.append((current, try target.append(JournalFile.frame(records: records))))
            } catch {
                target.rollBack(error)
                failures += current.map { ($0, error) }
            }
        }

        let handles = written.compactMap(\.handle)
        var syncError: ArchiveError?
        if !handles.isEmpty {
            do {
                try fileSystem.syncAll(handles)
            } catch {
                syncError = ArchiveError(error)
            }
        }
        statistics.withLock {
            $0.groups += 1
            $0.items += items.count
            $0.syncs += handles.isEmpty ? 0 : 1
        }

        for (group, handle) in written {
            guard let target = group.first?.target else { continue }
            if let syncError, handle != nil {
                target.rollBack(syncError)
                failures += group.map { ($0, syncError) }
                continue
            }
            target.markDurable(through: group.map(\.lastSequence).max() ?? 0)
            for item in group { item.complete(.success(())) }
        }
        for (item, error) in failures { item.complete(.failure(error)) }
    }
}
