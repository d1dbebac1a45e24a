import Dispatch
import Synchronization
import WaterLog

/// What the committer needs of an archive; ``Archive`` is the one implementation.
protocol CommitTarget: AnyObject, Sendable {
    func isCurrent(epoch: UInt64) -> Bool
    func append(_ frame: [UInt8]) throws(ArchiveError) -> FileHandleID
    func markDurable(through sequence: UInt64)
    func rollBack(_ error: ArchiveError)
    func compactIfNeeded()
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
/// Submissions queue up while a group is being written and synced; the next group takes all
/// of them at once: one frame per archive, one write per archive, then one sync for every
/// journal touched (``FileSystem/syncAll(_:)``), and only then the completions. So the cost of
/// a sync is shared by everything that arrived during the previous one, whatever the number
/// of members writing.
public final class GroupCommitter: Sendable {
    private struct Pending {
        var items: [CommitItem] = []
        var isDraining = false
    }

    private let fileSystem: any FileSystem
    private let logger: Logger
    private let queue = DispatchQueue(label: "water.group-commit", qos: .userInitiated)
    private let pending = Mutex(Pending())
    private let statistics = Mutex(Statistics())

    /// How much grouping happened, for the benchmark and the status page.
    public struct Statistics: Sendable {
        public var groups = 0
        public var items = 0
        public var syncs = 0
    }

    public init(fileSystem: any FileSystem, logger: Logger) {
        self.fileSystem = fileSystem
        self.logger = logger
    }

    public var currentStatistics: Statistics { statistics.withLock { $0 } }

    /// Queues `item`. When no group is being committed, the caller leads: it commits this
    /// group on its own thread (a lone writer then pays one fdatasync and no thread hop), and
    /// hands whatever arrived meanwhile to the committer's queue.
    func submit(_ item: CommitItem) {
        let lead = pending.withLock { pending -> Bool in
            pending.items.append(item)
            defer { pending.isDraining = true }
            return !pending.isDraining
        }
        guard lead else { return }
        let items = takePending()
        if !items.isEmpty { commit(items) }
        if !takeTurnOff() { queue.async { self.drain() } }
    }

    /// Everything queued, now.
    private func takePending() -> [CommitItem] {
        pending.withLock { pending in
            defer { pending.items.removeAll(keepingCapacity: true) }
            return pending.items
        }
    }

    /// Ends a turn of committing when nothing is queued; returns false when more is waiting.
    private func takeTurnOff() -> Bool {
        pending.withLock { pending in
            guard pending.items.isEmpty else { return false }
            pending.isDraining = false
            return true
        }
    }

    /// Runs `body` on the committer's queue, between two groups.
    func perform(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Waits until everything submitted so far has been committed or failed.
    public func flush() {
        queue.sync {}
        while pending.withLock({ !$0.items.isEmpty || $0.isDraining }) { queue.sync {} }
    }

    private func drain() {
        repeat {
            let items = takePending()
            if !items.isEmpty { commit(items) }
        } while !takeTurnOff()
    }

    private func commit(_ items: [CommitItem]) {
        // Group by archive, keeping each archive's submissions in order.
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
                failures.append((stale, ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
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
            if handle != nil { target.compactIfNeeded() }
        }
        for (item, error) in failures { item.complete(.failure(error)) }
    }
}
