import Glibc
import Synchronization
import WaterStore

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

    let state = Mutex(State())

    public init() {}

    /// The file system of the current boot.
    public func fileSystem() -> SimulatedFileSystem {
        SimulatedFileSystem(disk: self, boot: state.withLock { $0.boot })
    }

    /// Loses everything not durable. `keepingUnsynced` may keep a prefix of each file's
    /// unsynced appended bytes (given the path and how many there are), to produce torn tails.
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
                if inode.data.count > inode.durable.count, Array(inode.data.prefix(inode.durable.count)) == inode.durable,
                    let path = pathOfInode[number]
                {
                    let extra = inode.data.count - inode.durable.count
                    restored += inode.data[inode.durable.count..<(inode.durable.count + min(max(keepingUnsynced(path, extra), 0), extra))]
                }
                state.inodes[number] = Inode(data: restored, durable: restored)
            }
        }
        return fileSystem()
    }

    /// Every file's current content, for comparing a directory byte for byte.
    public func contents(under prefix: String) -> [String: [UInt8]] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.names.filter { $0.key.hasPrefix(prefix) }
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
}
