import WaterLog
import WaterSync
import WaterSystem

/// The shared log as a store's archives use it: the writing end, what the log held when the
/// store opened (for archives not loaded yet), and where each archive's snapshot stands, which
/// decides when a segment may go.
///
/// A segment is removed once every archive with a chunk in it has a snapshot past that chunk.
/// When the log grows past ``maximumSegments`` anyway (an archive written once long ago and
/// never since holds its oldest segment), the archives holding that segment are snapshotted.
/// A protected archive's position is unknown: it holds every segment from its last good
/// snapshot on, so a repair finds all its records.
final class SharedLog: Sendable {
    let directory: String
    let writer: WriteAheadLog
    let maximumSegments: Int
    /// How long each snapshot took to write, read back and replace (those that succeeded),
    /// for `/metrics`: atomics the snapshot writer adds to.
    let snapshotDurations = DurationHistograms()
    private let fileSystem: any FileSystem
    /// What the log held at the start, minus the chunks of archives loaded since.
    private let index: Locked<LogIndex>
    /// Where each archive's snapshot stands, for every archive of the directory.
    private let snapshots: Locked<[UInt64: LogPosition]>
    /// Asked to snapshot the archives holding the oldest segment when the log is too long.
    private let compactionWanted = Locked<(@Sendable ([UInt64]) -> Void)?>(nil)

    init(
        directory: String, index: LogIndex, snapshots: [UInt64: LogPosition], segmentLength: Int,
        maximumSegments: Int, fileSystem: any FileSystem, logger: Logger
    ) throws(FileSystemError) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.maximumSegments = maximumSegments
        self.index = Locked(index)
        self.snapshots = Locked(snapshots)
        writer = try WriteAheadLog(
            directory: directory, index: index, segmentLength: segmentLength, fileSystem: fileSystem, logger: logger)
        writer.onRotation { [weak self] in self?.checkLength() }
    }

    /// How archives read their chunks: the log as it was at the start.
    var reader: LogReader {
        LogReader(directory: directory, fileSystem: fileSystem, index: index.withLock { $0 })
    }

    /// An archive has loaded: its chunks are in memory now, and need not be kept here.
    func loaded(_ key: UInt64) {
        index.withLock { _ = $0.chunks.removeValue(forKey: key) }
    }

    /// Where `key`'s snapshot stands now; segments nobody needs any more go.
    func snapshotWritten(_ key: UInt64, at position: LogPosition) {
        let positions = snapshots.withLock { snapshots in
            snapshots[key] = max(snapshots[key] ?? .start, position)
            return snapshots
        }
        writer.recycle(positions)
    }

    /// A new archive starts empty at the log's end.
    func created(_ key: UInt64, at position: LogPosition) {
        snapshots.withLock { $0[key] = $0[key] ?? position }
    }

    /// Where `key`'s snapshot stands, as far as the store knows.
    func snapshotPosition(_ key: UInt64) -> LogPosition? {
        snapshots.withLock { $0[key] }
    }

    /// Who to ask for snapshots when the log grows too long.
    func onCompactionWanted(_ body: @escaping @Sendable ([UInt64]) -> Void) {
        compactionWanted.withLock { $0 = body }
    }

    /// Removes what can go now (at the start, for segments a crash kept after they were
    /// done with).
    func recycle() {
        writer.recycle(snapshots.withLock { $0 })
    }

    private func checkLength() {
        guard writer.liveSegmentCount > maximumSegments else { return }
        let holding = writer.pinning(snapshots.withLock { $0 })
        guard !holding.isEmpty, let ask = compactionWanted.withLock({ $0 }) else { return }
        ask(holding)
    }
}
