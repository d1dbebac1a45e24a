import Dispatch
import WaterCore
import WaterLog
import WaterSync
import WaterSystem

/// One archive in use: its state in memory, its snapshot, and its chunks in the shared log.
///
/// Writes go through ``commit(_:result:completion:)``: the caller's `decide` runs on the latest
/// state under this archive's lock, the mutations it returns are applied at once in memory,
/// numbered, and queued in the ``GroupCommitter`` — all in that one critical section, which is
/// what keeps records in sequence order in the log (see ``GroupCommitter`` for the whole rule).
/// `completion` runs once they are durable. Readers see the latest state.
///
/// Two pieces of state, two owners:
/// - `latest` (what callers read and decide on) belongs to this archive's lock;
/// - `durable` (what the log holds after the snapshot, where it stands in the log, the
///   snapshot's figures) is changed only by the committer's leader and, for the snapshot, by
///   the snapshot writer.
///
/// Only `latest` is a model. The durable state is the snapshot on disk with `durable`'s
/// mutations applied, read back when a snapshot is written or a failed write is rolled back:
/// a second model kept for it would be a second copy of every array of the first from the
/// first write on, which doubled a loaded archive's memory (issue 30).
///
/// An archive that failed to load is in protected mode: its files are left exactly as they are,
/// and reads and writes fail with the reason.
public final class Archive<Model: ArchiveModel>: Sendable {
    public let directory: String
    /// Its name in the shared log (``ArchiveKey``).
    let key: UInt64
    let fileSystem: any FileSystem
    let logger: Logger
    let committer: GroupCommitter
    let log: SharedLog
    let compactionThreshold: Int
    /// What reading the snapshot back needs.
    let context: ArchiveContext
    /// Told after each snapshot is written (the status file shows compactions at once).
    let compacted: @Sendable () -> Void
    /// This load of the archive, for ``revision``.
    let instance = ArchiveRevision.nextInstance()

    /// What callers see and change.
    struct Latest {
        var model: Model
        var nextSequence: UInt64
        /// Set when the archive could not be loaded; never cleared while the process runs.
        var protection: ArchiveError?
        /// Bumped when a write fails: everything submitted before is void.
        var epoch: UInt64 = 0
        /// Mutations applied to `model` but not yet durable, oldest first.
        var unsynced: [(sequence: UInt64, mutation: Model.Mutation)] = []
        /// Set when a write failed and the durable state could not be read back: `model` is
        /// void then, and reads and writes try again first, failing with this until they can.
        var restoreFailure: ArchiveError?
    }

    /// What the committer's leader and the snapshot writer own: the durable state and where it
    /// stands.
    struct Durable {
        /// The durable mutations the snapshot on disk does not hold, oldest first: the durable
        /// state is that snapshot with these applied. The leader only appends to them (a sync is
        /// never followed by applying a group's mutations a second time on the loop); the
        /// snapshot writer applies them, off the leader's thread, to the snapshot it reads back,
        /// and removes them once the snapshot it writes holds them. They stay bounded as the log
        /// since the snapshot is (``compactionDue(compactionThreshold:snapshotBodyLength:)``).
        var unfolded: [(sequence: UInt64, mutation: Model.Mutation)] = []
        /// Everything through this sequence number is on disk, in frames ending by `position`.
        var sequence: UInt64
        var position: LogPosition
        /// Where the snapshot on disk stands, and its sizes (the body's before compression).
        var snapshotPosition: LogPosition
        var snapshotLength: Int
        var snapshotBodyLength: Int
        /// Bytes of the log this archive's chunks took since the snapshot.
        var logBytes: Int
        /// The snapshot is in an older format: rewrite it at the first write.
        var isCompactionDue = false
        var isCompacting = false
        /// A snapshot to write once the one being written is done: the state at a later
        /// point, which holds everything durable by then.
        var isCompactionQueued = false
        var compactions = 0
        var lastCompactionUnixMilliseconds: Int64?
    }

    /// The durable state through `sequence` as `durable` describes it: the snapshot on disk with
    /// `mutations` applied, which is exactly what the log holds of this archive up to `position`.
    /// What a snapshot writer writes, and what a roll-back goes back to
    /// (``readDurableState(_:)``).
    struct Compaction {
        var mutations: [(sequence: UInt64, mutation: Model.Mutation)]
        var sequence: UInt64
        var position: LogPosition
        /// Whether the archive has a snapshot file; an archive loaded without one starts empty.
        var hasSnapshot: Bool

        init(_ durable: Durable) {
            mutations = durable.unfolded
            sequence = durable.sequence
            position = durable.position
            hasSnapshot = durable.snapshotLength > 0
        }
    }

    let latest: Locked<Latest>
    let durable: Locked<Durable>

    init(
        directory: String, key: UInt64, fileSystem: any FileSystem, context: ArchiveContext,
        expectation: ArchiveExpectation, log: SharedLog, committer: GroupCommitter, logger: Logger,
        compactionThreshold: Int, compacted: @escaping @Sendable () -> Void = {}
    ) {
        self.compacted = compacted
        self.directory = directory
        self.key = key
        self.fileSystem = fileSystem
        self.committer = committer
        self.log = log
        self.logger = logger
        self.compactionThreshold = compactionThreshold
        self.context = context
        var latest = Latest(model: Model(context: context), nextSequence: 1)
        var durable = Durable(
            sequence: 0, position: .start, snapshotPosition: .start, snapshotLength: 0, snapshotBodyLength: 0,
            logBytes: 0)
        do {
            let loaded = try ArchiveLoader<Model>(
                fileSystem: fileSystem, directory: directory, key: key, context: context,
                expectation: expectation, log: log.reader
            ).load()
            for name in loaded.temporaryFiles { try? fileSystem.remove("\(directory)/\(name)") }
            latest.model = loaded.model
            latest.nextSequence = loaded.lastSequence + 1
            durable = Durable(
                unfolded: loaded.replayed, sequence: loaded.lastSequence, position: loaded.position,
                snapshotPosition: loaded.snapshotPosition, snapshotLength: loaded.snapshotLength,
                snapshotBodyLength: loaded.snapshotBodyLength, logBytes: loaded.logBytes,
                isCompactionDue: loaded.needsMigration)
            log.loaded(key)
        } catch {
            logger.error("archive protected", ["archive.path": directory, "reason": error.description])
            latest.protection = ArchiveError(
                .protected,
                "\(directory) could not be read (\(error.message)); "
                    + "it is kept untouched and writes are refused until it is repaired")
        }
        self.latest = Locked(latest)
        self.durable = Locked(durable)
    }

    // MARK: Reading and writing

    /// Why the archive refuses reads and writes, or nil when it is healthy.
    public var protection: ArchiveError? { latest.withLock { $0.protection } }

    /// Reads the latest state.
    /// - Throws: `.protected` when the archive could not be loaded; `.ioFailure` when a write
    ///   failed and the durable state could not be read back yet.
    public func read<T>(_ body: (Model) throws -> T) throws -> T {
        try latest.withLock { latest in
            if let protection = latest.protection { throw protection }
            if latest.restoreFailure != nil { try restore(&latest) }
            return try body(latest.model)
        }
    }

    /// Decides on the latest state, applies what `decide` returns, and queues it for the log.
    ///
    /// `decide` runs under this archive's lock: keep it to validation, and never wait in it
    /// for another commit (the committer's leader may need this lock). `result` then runs on
    /// the state after the mutations, still under the lock, to build the reply. When `decide`
    /// returns no mutations (a replayed request), `completion` still waits until everything
    /// submitted before is durable, so a reply never reports state that could still be lost.
    ///
    /// `decide` returns the mutations with a note of what it saw before them (the entry it
    /// removes, the day an edit moves from), and `result` gets that note with the state after
    /// them. This and ``commitReturning(_:result:)`` are the two ways a write goes in;
    /// ``commitAndWait(_:result:)`` only waits on this one.
    /// - Throws: what `decide` throws, or `.protected`; nothing is written then.
    public func commit<Note, Value: Sendable>(
        _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value,
        completion: @escaping @Sendable (Result<Value, ArchiveError>) -> Void
    ) throws {
        let submitted = try submit(decide, result: result) { value in
            { outcome in completion(outcome.map { value }) }
        }
        if submitted.mustLead { committer.lead() }
    }

    /// Decides, applies and queues a write as ``commit(_:result:completion:)`` does, and
    /// returns `result`'s value at once, with no closure kept per call: for a caller whose
    /// answer leaves only after the committer's leader has committed (an event loop holds the
    /// leadership through its turn and answers after the turn's sync). When this call finds the
    /// committer idle it leads itself, so the write is durable when it returns.
    /// - Returns: `result`'s value, the group of the log the write was queued in and this
    ///   archive in the epoch it wrote in: the caller's answer tells of a write that failed only
    ///   when that group loses this archive in that epoch (``GroupOutcome``).
    /// - Throws: what `decide` throws, or `.protected`, before anything is written; or, when
    ///   it led, ``ArchiveError`` when the commit failed (nothing was saved).
    @discardableResult
    public func commitReturning<Note, Value>(
        _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value
    ) throws -> Committed<Value> {
        let submitted = try submit(decide, result: result, completion: { _ in nil })
        if submitted.mustLead, !committer.lead(), !isCurrent(epoch: submitted.epoch) {
            throw latest.withLock { $0.protection }
                ?? ArchiveError(.ioFailure, "\(directory) could not be written; nothing was saved")
        }
        return submitted.committed
    }

    /// Applies `decide`'s mutations, numbers them and queues them with the committer, all in
    /// one critical section of this archive's lock, so the committer sees this archive's
    /// records in sequence order.
    /// - Returns: `result`'s value with the group it was queued for, whether the caller must
    ///   lead, and the epoch it wrote in.
    private func submit<Note, Value>(
        _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value,
        completion: (Value) -> (@Sendable (Result<Void, ArchiveError>) -> Void)?
    ) throws -> (committed: Committed<Value>, mustLead: Bool, epoch: UInt64) {
        try latest.withLock { latest in
            if let protection = latest.protection { throw protection }
            if latest.restoreFailure != nil { try restore(&latest) }
            let decision = try decide(latest.model)
            let firstSequence = latest.nextSequence
            apply(decision.mutations, to: &latest)
            let value = result(latest.model, decision.note)
            let queued = queue(decision.mutations, from: firstSequence, epoch: latest.epoch, completion(value))
            let written = ArchiveEpoch(archive: key, epoch: latest.epoch)
            return (Committed(value: value, group: queued.group, written: written), queued.mustLead, latest.epoch)
        }
    }

    /// Applies and numbers a decision's mutations. Specialised for each model, like
    /// ``queue(_:from:epoch:_:)``: a generic loop over values of unknown size would allocate for
    /// every element it steps over, and this runs for every write.
    @_specialize(where Model == MemberArchive)
    @_specialize(where Model == TodoList)
    @_specialize(where Model == AccountBook)
    private func apply(_ mutations: Mutations<Model.Mutation>, to latest: inout Latest) {
        for index in 0..<mutations.count {
            let mutation = mutations[index]
            latest.model.apply(mutation)
            latest.unsynced.append((latest.nextSequence, mutation))
            latest.nextSequence += 1
        }
    }

    /// Hands a decision's records, numbered from `first`, to the committer.
    /// - Returns: whether the caller must lead.
    @_specialize(where Model == MemberArchive)
    @_specialize(where Model == TodoList)
    @_specialize(where Model == AccountBook)
    private func queue(
        _ mutations: Mutations<Model.Mutation>, from first: UInt64, epoch: UInt64,
        _ complete: (@Sendable (Result<Void, ArchiveError>) -> Void)?
    ) -> (mustLead: Bool, group: UInt64) {
        committer.enqueue(
            self, epoch: epoch, firstSequence: first, recordCount: mutations.count,
            records: { writer in
                for index in 0..<mutations.count {
                    writer.append(Model.record(mutations[index], sequence: first + UInt64(index)))
                }
            }, complete: complete)
    }

    /// Commits and waits until the mutations are durable. Never call it on Swift's
    /// cooperative thread pool.
    @discardableResult
    public func commitAndWait<Value: Sendable>(
        _ decide: (Model) throws -> [Model.Mutation],
        result: (Model) -> Value
    ) throws -> Value {
        let done = ResultWaiter<Value>()
        try commit({ Decision(try decide($0)) }, result: { model, _ in result(model) }) { done.signal($0) }
        return try done.wait().get()
    }

    public func commitAndWait(_ decide: (Model) throws -> [Model.Mutation]) throws {
        try commitAndWait(decide, result: { _ in () })
    }

    /// What this archive keeps in memory for its state: its model as `modelBytes` counts it, and
    /// the mutations it holds (durable ones no snapshot holds yet, and ones not yet durable),
    /// with their arrays' bytes at capacity. For tests: what writes leave behind.
    func retainedMemory(model modelBytes: (Model) -> Int) -> (modelBytes: Int, mutationBytes: Int, mutations: Int) {
        let stride = MemoryLayout<(sequence: UInt64, mutation: Model.Mutation)>.stride
        let (model, unsynced) = latest.withLock { (modelBytes($0.model), $0.unsynced) }
        let unfolded = durable.withLock { $0.unfolded }
        return (
            model, (unsynced.capacity + unfolded.capacity) * stride, unsynced.count + unfolded.count
        )
    }

    /// Refuses later writes (``FileArchiveStore/close()``, once everything submitted before is
    /// written).
    func close() {
        latest.withLock { $0.protection = $0.protection ?? ArchiveError(.ioFailure, "\(directory) is closed") }
    }
}

/// Waits for one result on a thread that may block.
final class ResultWaiter<Value: Sendable>: Sendable {
    private let result = Locked<Result<Value, ArchiveError>?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func signal(_ result: Result<Value, ArchiveError>) {
        self.result.withLock { $0 = result }
        semaphore.signal()
    }

    func wait() -> Result<Value, ArchiveError> {
        semaphore.wait()
        return result.withLock { $0! }
    }
}
