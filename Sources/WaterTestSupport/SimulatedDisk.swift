import Glibc
import WaterStore
import WaterSync
import WaterSystem

/// An in-memory disk that remembers what is durable, for crash tests in the way SQLite tests
/// its I/O layer: file data is durable once synced, a created, renamed or removed name once
/// its directory is synced. ``crash(keepingUnsynced:)`` throws away the rest, as a power cut
/// would, and hands out a fresh ``SimulatedFileSystem`` for the "next boot"; the old one (and
/// every thread of the store that used it) gets EIO from then on.
public final class SimulatedDisk: Sendable {
    struct Inode {
        var data: [UInt8] = []
        var durable: [UInt8] = []
    }

    struct State {
        var boot = 0
        var inodes: [Int: Inode] = [:]
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        var directories: Set<String> = ["/"]
        var durableDirectories: Set<String> = ["/"]
        var handles: [Int32: Int] = [:]
        var locks: [String: String] = [:]
        var lockHandles: [Int32: String] = [:]
        var nextInode = 1
        var nextHandle: Int32 = 3
    }

    let state = Locked(State())

    public init() {}

    /// The file system of the current boot.
    public func fileSystem() -> SimulatedFileSystem {
        SimulatedFileSystem(disk: self, boot: state.withLock { $0.boot })
    }

    /// Loses everything not durable. `keepingUnsynced` may keep a prefix of each file's
    /// unsynced bytes (given the path and how many there are: from the first byte that differs
    /// from what is durable to the last, appended or overwritten), to produce torn writes.
    @discardableResult
    public func crash(keepingUnsynced: (String, Int) -> Int = { _, _ in 0 }) -> SimulatedFileSystem {
        state.withLock { state in
            state.boot += 1
            state.names = state.durableNames
            state.directories = state.durableDirectories
            state.handles = [:]
            state.locks = [:]
            state.lockHandles = [:]
            let pathOfInode = Dictionary(state.names.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
            for (number, inode) in state.inodes {
                var restored = inode.durable
                if let path = pathOfInode[number], let unsynced = Self.unsyncedRange(inode) {
                    let kept = min(max(keepingUnsynced(path, unsynced.count), 0), unsynced.count)
                    let end = unsynced.lowerBound + kept
                    if restored.count < end { restored += [UInt8](repeating: 0, count: end - restored.count) }
                    restored.replaceSubrange(unsynced.lowerBound..<end, with: inode.data[unsynced.lowerBound..<end])
                }
                state.inodes[number] = Inode(data: restored, durable: restored)
            }
        }
        return fileSystem()
    }

    /// From the first byte written since the last sync to the last one; nil when a file only
    /// shrank or is unchanged (an unsynced truncation is simply lost).
    private static func unsyncedRange(_ inode: Inode) -> Range<Int>? {
        let (data, durable) = (inode.data, inode.durable)
        let common = min(data.count, durable.count)
        let first = (0..<common).first { data[$0] != durable[$0] }
        let last = (0..<common).last { data[$0] != durable[$0] }
        if data.count > durable.count { return (first ?? common)..<data.count }
        guard let first, let last else { return nil }
        return first..<(last + 1)
    }

    /// Every file's current content, for comparing a directory byte for byte.
    public func contents(under prefix: String) -> [String: [UInt8]] {
        state.withLock { state in
            Dictionary(
                uniqueKeysWithValues: state.names.filter { $0.key.hasPrefix(prefix) }
                    .map { ($0.key, state.inodes[$0.value]!.data) })
        }
    }

    /// Replaces a file's content (durably), as damage on the disk would.
    public func overwrite(_ path: String, with bytes: [UInt8]) {
        state.withLock { state in
            guard let number = state.names[path] else { return }
            state.inodes[number] = Inode(data: bytes, durable: bytes)
        }
    }

    /// Removes a file (durably), as someone deleting it by hand would.
    public func remove(_ path: String) {
        state.withLock { state in
            state.names[path] = nil
            state.durableNames[path] = nil
        }
    }
}
