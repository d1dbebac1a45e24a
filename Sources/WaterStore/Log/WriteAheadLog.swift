import Dispatch
import WaterLog
import WaterSync
import WaterSystem

/// The writing end of the shared log: one frame per group commit, one fdatasync per group,
/// whatever the number of archives the group wrote (Redis's AOF and PostgreSQL's WAL do the
/// same; the per-archive journals this replaced needed a sync per archive, or a syncfs that also
/// flushed every other program's writes).
///
/// ## Who owns what
/// - `writer` (the open segment, where the next frame goes, what is synced) belongs to the
///   ``GroupCommitter``'s leader: only it appends, syncs, rotates and rolls back.
/// - `live` (which segments are in use, and whose chunks each holds) is shared with the
///   snapshot writer, which removes segments every archive has snapshotted past.
/// - The next segment is made ahead of time on `preparation`, so that a rotation only opens a
///   file already full length and durable.
final class WriteAheadLog: Sendable {
    let directory: String
    private let fileSystem: any FileSystem
    private let logger: Logger
    let segmentLength: Int

    private struct Writer {
        var handle: FileHandleID?
        var generation: UInt64
        var length: Int
        /// Where the next frame goes.
        var end: Int
        /// Bytes known to be on disk.
        var synced: Int
        /// How far a write may have reached, synced or not: a failed write's bytes up to here
        /// are zeroed before anything else is appended.
        var writtenEnd: Int
        /// The header goes out with a segment's first frame; until then the file is all zeros.
        var hasHeader: Bool
        /// Where the previous segment's frames end: what the header says.
        var previousEnd: Int

        var isDirty: Bool { writtenEnd > synced }
    }

    /// A segment in use, as recycling sees it.
    struct LiveSegment: Sendable {
        var generation: UInt64
        /// Each archive with chunks in it, and the end of its last frame there.
        var lastFrameEnds: [UInt64: LogPosition]
    }

    private let writer: Locked<Writer>
    /// The next segment made ahead of time (by `preparation`, which touches nothing else).
    private let premade: Locked<UInt64?>
    private let live: Locked<[LiveSegment]>
    private let preparation = DispatchQueue(label: "water.log-preparation", qos: .utility)
    private let rotationHandler = Locked<(@Sendable () -> Void)?>(nil)

    /// Opens the log at `index`'s end for appending: the torn tail must have been cut and the
    /// leftovers removed (``FileArchiveStore`` does both before this).
    init(directory: String, index: LogIndex, segmentLength: Int, fileSystem: any FileSystem, logger: Logger)
        throws(FileSystemError)
    {
        self.directory = directory
        self.fileSystem = fileSystem
        self.logger = logger
        self.segmentLength = segmentLength
        var writer: Writer
        // The newest segment goes on only when no file comes after it (but the one made ahead).
        let newest = index.premade.map { $0 - 1 } ?? index.highestGeneration
        if let current = index.segments.last, current.generation == newest {
            let handle = try fileSystem.open(Self.path(directory, current.generation), create: false, mode: 0o600)
            let hasHeader = current.validEnd > LogSegment.headerLength || !current.lastFrameEnds.isEmpty
            let previousEnd = index.segments.dropLast().last?.validEnd ?? 0
            writer = Writer(
                handle: handle, generation: current.generation, length: current.length,
                end: hasHeader ? current.validEnd : 0, synced: hasHeader ? current.validEnd : 0,
                writtenEnd: hasHeader ? current.validEnd : 0, hasHeader: hasHeader, previousEnd: previousEnd)
        } else {
            // No segment yet, or the newest could not be read: the next frame starts a new one
            // after every file there (the first append moves to it).
            writer = Writer(
                handle: nil, generation: newest, length: 0, end: 0,
                synced: 0, writtenEnd: 0, hasHeader: true, previousEnd: 0)
        }
        self.writer = Locked(writer)
        self.premade = Locked(index.premade)
        self.live = Locked(
            index.segments.map { LiveSegment(generation: $0.generation, lastFrameEnds: $0.lastFrameEnds) })
        prepareNext(after: writer.generation)
    }

    static func path(_ directory: String, _ generation: UInt64) -> String {
        "\(directory)/\(LogSegment.name(generation: generation))"
    }

    /// The position after the last frame written: before every frame written from now on.
    var end: LogPosition {
        writer.withLock { writer in
            writer.handle == nil
                ? LogPosition(generation: writer.generation + 1, offset: 0)
                : LogPosition(generation: writer.generation, offset: writer.end)
        }
    }

    // MARK: The leader's

    /// Writes one frame, not yet synced; returns where it ends. Moves to the next segment
    /// first when the frame does not fit in this one.
    func append(_ frame: [UInt8], keys: some Sequence<UInt64>) throws(FileSystemError) -> LogPosition {
        var didRotate = false
        let end = try writer.withLock { (writer) throws(FileSystemError) -> LogPosition in
            try cleanTail(&writer)
            let needed = (writer.hasHeader ? 0 : LogSegment.headerLength) + frame.count
            if writer.handle == nil || writer.end + needed > writer.length {
                try rotate(&writer, frameLength: frame.count)
                didRotate = true
            }
            let handle = writer.handle!
            if writer.hasHeader {
                writer.writtenEnd = max(writer.writtenEnd, writer.end + frame.count)
                try fileSystem.write(handle, frame, at: writer.end)
                writer.end += frame.count
            } else {
                let header = LogSegment.header(
                    generation: writer.generation, length: writer.length, previousEnd: writer.previousEnd)
                writer.writtenEnd = max(writer.writtenEnd, header.count + frame.count)
                try fileSystem.write(handle, header + frame, at: 0)
                writer.end = header.count + frame.count
                writer.hasHeader = true
            }
            return LogPosition(generation: writer.generation, offset: writer.end)
        }
        live.withLock { live in
            if live.last?.generation != end.generation {
                live.append(LiveSegment(generation: end.generation, lastFrameEnds: [:]))
            }
            for key in keys { live[live.count - 1].lastFrameEnds[key] = end }
        }
        if didRotate { rotationHandler.withLock { $0 }?() }
        return end
    }

    /// Told after each move to a new segment (outside every lock of the log's).
    func onRotation(_ body: @escaping @Sendable () -> Void) {
        rotationHandler.withLock { $0 = body }
    }

    /// Makes every frame written so far durable.
    func sync() throws(FileSystemError) {
        try writer.withLock { (writer) throws(FileSystemError) in
            guard let handle = writer.handle, writer.end > writer.synced else { return }
            try fileSystem.sync(handle)
            writer.synced = writer.end
            writer.writtenEnd = writer.end
        }
    }

    /// A write or sync failed: what was not synced is zeroed (now, or before the next append if
    /// that fails too), and the next frame goes where the synced ones end. Nothing is ever
    /// appended after bytes of unknown state.
    func rollBack() {
        writer.withLock { writer in
            writer.end = writer.synced
            if writer.synced == 0 { writer.hasHeader = false }
            try? cleanTail(&writer)
        }
    }

    /// Zeroes what a failed write may have left past the synced bytes, and syncs that.
    private func cleanTail(_ writer: inout Writer) throws(FileSystemError) {
        guard writer.isDirty, let handle = writer.handle else { return }
        try fileSystem.write(handle, [UInt8](repeating: 0, count: writer.writtenEnd - writer.synced), at: writer.synced)
        try fileSystem.sync(handle)
        writer.writtenEnd = writer.synced
    }

    /// Goes on in the next segment: the one made ahead of time, or one made now. Every frame of
    /// the current one is synced already (a group is synced before the next is written).
    private func rotate(_ writer: inout Writer, frameLength: Int) throws(FileSystemError) {
        let next = writer.generation + 1
        let length = max(segmentLength, LogSegment.headerLength + frameLength)
        // The one being made ahead is nearly always done by now; never make the same file twice.
        preparation.sync {}
        let ready = premade.withLock { premade in
            defer { premade = nil }
            return premade == next
        }
        if !ready || length > segmentLength {
            if ready { try? fileSystem.remove(Self.path(directory, next)) }
            try makeSegment(next, length: length)
        }
        let handle = try fileSystem.open(Self.path(directory, next), create: false, mode: 0o600)
        if let old = writer.handle {
            fileSystem.close(old)
            writer.previousEnd = writer.end
        } else {
            writer.previousEnd = 0
        }
        writer.handle = handle
        writer.generation = next
        writer.length = length
        (writer.end, writer.synced, writer.writtenEnd) = (0, 0, 0)
        writer.hasHeader = false
        logger.debug("log segment started", ["log.segment": LogSegment.name(generation: next)])
        prepareNext(after: next)
    }

    /// Makes segment `generation` full length and durable: temp file, sync, rename, sync the
    /// directory.
    private func makeSegment(_ generation: UInt64, length: Int) throws(FileSystemError) {
        try fileSystem.replaceFile(
            Self.path(directory, generation), with: [UInt8](repeating: 0, count: length), mode: 0o600)
    }

    /// Makes the segment after `current` in the background, unless it is there.
    private func prepareNext(after current: UInt64) {
        let next = current + 1
        preparation.async { [self] in
            guard premade.withLock({ $0 }) != next else { return }
            do throws(FileSystemError) {
                try makeSegment(next, length: segmentLength)
                premade.withLock { $0 = next }
            } catch {
                logger.warning("log segment not made ahead", ["error": error.description])
            }
        }
    }

    /// Waits for the segment being made ahead (tests, shutdown).
    func waitForPreparation() {
        preparation.sync {}
    }

    /// Closes the open segment.
    func close() {
        waitForPreparation()
        writer.withLock { writer in
            if let handle = writer.handle { fileSystem.close(handle) }
            writer.handle = nil
        }
    }

    // MARK: Recycling

    /// Every archive with a chunk in a segment in use.
    var liveKeys: [UInt64] {
        live.withLock { live in Array(Set(live.flatMap(\.lastFrameEnds.keys))) }
    }

    /// How many segments are in use.
    var liveSegmentCount: Int { live.withLock { $0.count } }

    /// The segments in use and their files' bytes (a file that cannot be opened counts 0).
    var liveSegmentFigures: (count: Int, bytes: Int) {
        let generations = live.withLock { $0.map(\.generation) }
        let bytes = generations.reduce(0) { total, generation in
            guard let handle = try? fileSystem.open(Self.path(directory, generation), create: false, mode: 0o600)
            else { return total }
            defer { fileSystem.close(handle) }
            return total + ((try? fileSystem.size(handle)) ?? 0)
        }
        return (generations.count, bytes)
    }

    /// The archives holding the oldest segment in use, given where each one's snapshot stands.
    func pinning(_ snapshots: [UInt64: LogPosition]) -> [UInt64] {
        live.withLock { live in
            guard let oldest = live.first, live.count > 1 else { return [] }
            return oldest.lastFrameEnds.filter { key, end in (snapshots[key] ?? .start) < end }.map(\.key).sorted()
        }
    }

    /// Removes every segment but the current one whose chunks all belong to archives with a
    /// snapshot past them, oldest first, stopping at the first still needed.
    func recycle(_ snapshots: [UInt64: LogPosition]) {
        let current = writer.withLock { $0.generation }
        let removable = live.withLock { live -> [UInt64] in
            var removable: [UInt64] = []
            for segment in live where segment.generation < current {
                guard segment.lastFrameEnds.allSatisfy({ key, end in (snapshots[key] ?? .start) >= end }) else {
                    break
                }
                removable.append(segment.generation)
            }
            live.removeFirst(removable.count)
            return removable
        }
        guard !removable.isEmpty else { return }
        do {
            for generation in removable { try fileSystem.remove(Self.path(directory, generation)) }
            try fileSystem.syncDirectory(directory)
            logger.debug(
                "log segments removed",
                ["log.segments": removable.map { LogSegment.name(generation: $0) }.joined(separator: ",")])
        } catch {
            // Left on disk: harmless (every archive is past them), and removed at the next start.
            logger.warning("log segment not removed", ["error": error.description])
        }
    }
}
