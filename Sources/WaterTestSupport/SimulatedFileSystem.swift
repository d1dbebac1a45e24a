import Glibc
import WaterStore
import WaterSystem

/// One boot's view of a ``SimulatedDisk``.
public struct SimulatedFileSystem: FileSystem {
    let disk: SimulatedDisk
    let boot: Int

    private func withState<T>(
        _ operation: String, _ path: String,
        _ body: (inout SimulatedDisk.State) throws(FileSystemError) -> T
    )
        throws(FileSystemError) -> T
    {
        try disk.state.withLock { (state) throws(FileSystemError) -> T in
            guard state.boot == boot else { throw FileSystemError(operation: operation, path: path, errno: EIO) }
            return try body(&state)
        }
    }

    private static func parent(_ path: String) -> String { Self.parent(of: path) }

    public func createDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        try withState("mkdir", path) { (state) throws(FileSystemError) in
            guard state.directories.contains(Self.parent(path)) else {
                throw FileSystemError(operation: "mkdir", path: path, errno: ENOENT)
            }
            state.directories.insert(path)
        }
    }

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
        try withState("opendir", path) { (state) throws(FileSystemError) -> [String] in
            guard state.directories.contains(path) else {
                throw FileSystemError(operation: "opendir", path: path, errno: ENOENT)
            }
            let children = (Array(state.names.keys) + Array(state.directories)).filter {
                Self.parent($0) == path && $0 != path
            }
            return Set(children.map { String($0.dropFirst(path.count + 1)) }).sorted()
        }
    }

    public func fileExists(_ path: String) -> Bool {
        (try? withState("access", path) { state in state.names[path] != nil || state.directories.contains(path) })
            ?? false
    }

    public func readFile(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        try withState("open", path) { (state) throws(FileSystemError) -> [UInt8] in
            guard let number = state.names[path] else {
                throw FileSystemError(operation: "open", path: path, errno: ENOENT)
            }
            let data = state.inodes[number]!.data
            guard data.count <= limit else { throw FileSystemError(operation: "read", path: path, errno: EFBIG) }
            return data
        }
    }

    public func open(_ path: String, create: Bool, mode: UInt32) throws(FileSystemError) -> FileHandleID {
        try withState("open", path) { (state) throws(FileSystemError) -> FileHandleID in
            if state.names[path] == nil {
                guard create, state.directories.contains(Self.parent(path)) else {
                    throw FileSystemError(operation: "open", path: path, errno: ENOENT)
                }
                state.names[path] = state.nextInode
                state.inodes[state.nextInode] = SimulatedDisk.Inode()
                state.nextInode += 1
            }
            let handle = state.nextHandle
            state.nextHandle += 1
            state.handles[handle] = state.names[path]
            return FileHandleID(raw: handle)
        }
    }

    private func inode(_ handle: FileHandleID, _ state: SimulatedDisk.State, _ operation: String)
        throws(FileSystemError) -> Int
    {
        guard let number = state.handles[handle.raw] else {
            throw FileSystemError(operation: operation, path: "fd \(handle.raw)", errno: EBADF)
        }
        return number
    }

    public func write(_ handle: FileHandleID, _ bytes: [UInt8], at offset: Int) throws(FileSystemError) {
        try withState("write", "fd \(handle.raw)") { (state) throws(FileSystemError) in
            let number = try inode(handle, state, "write")
            // In place: a log segment is a megabyte, written a frame at a time.
            let missing = offset + bytes.count - state.inodes[number]!.data.count
            if missing > 0 { state.inodes[number]!.data += repeatElement(0, count: missing) }
            state.inodes[number]!.data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
    }

    public func size(_ handle: FileHandleID) throws(FileSystemError) -> Int {
        try withState("fstat", "fd \(handle.raw)") { (state) throws(FileSystemError) -> Int in
            state.inodes[try inode(handle, state, "fstat")]!.data.count
        }
    }

    public func truncate(_ handle: FileHandleID, to length: Int) throws(FileSystemError) {
        try withState("ftruncate", "fd \(handle.raw)") { (state) throws(FileSystemError) in
            let number = try inode(handle, state, "ftruncate")
            var data = state.inodes[number]!.data
            if data.count > length {
                data.removeLast(data.count - length)
            } else {
                data += [UInt8](repeating: 0, count: length - data.count)
            }
            state.inodes[number]!.data = data
        }
    }

    public func sync(_ handle: FileHandleID) throws(FileSystemError) {
        try withState("fdatasync", "fd \(handle.raw)") { (state) throws(FileSystemError) in
            let number = try inode(handle, state, "fdatasync")
            state.inodes[number]!.durable = state.inodes[number]!.data
        }
    }

    public func close(_ handle: FileHandleID) {
        _ = try? withState("close", "fd \(handle.raw)") { state in
            state.handles[handle.raw] = nil
            if let path = state.lockHandles.removeValue(forKey: handle.raw) { state.locks[path] = nil }
        }
    }

    public func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try withState("rename", source) { (state) throws(FileSystemError) in
            guard let number = state.names.removeValue(forKey: source) else {
                throw FileSystemError(operation: "rename", path: source, errno: ENOENT)
            }
            state.names[destination] = number
        }
    }

    public func remove(_ path: String) throws(FileSystemError) {
        try withState("unlink", path) { (state) throws(FileSystemError) in
            guard state.names.removeValue(forKey: path) != nil else {
                throw FileSystemError(operation: "unlink", path: path, errno: ENOENT)
            }
        }
    }

    public func syncDirectory(_ path: String) throws(FileSystemError) {
        try withState("fsync", path) { state in
            for (name, number) in state.names where Self.parent(name) == path { state.durableNames[name] = number }
            for name in state.durableNames.keys where Self.parent(name) == path && state.names[name] == nil {
                state.durableNames[name] = nil
            }
            for directory in state.directories where Self.parent(directory) == path {
                state.durableDirectories.insert(directory)
            }
        }
    }

    public func lockExclusively(_ path: String, owner: String) throws(FileSystemError) -> FileHandleID {
        try withState("lock", path) { (state) throws(FileSystemError) -> FileHandleID in
            if let holder = state.locks[path] {
                throw FileSystemError(operation: "lock", path: holder, errno: EWOULDBLOCK)
            }
            state.locks[path] = owner
            let handle = state.nextHandle
            state.nextHandle += 1
            state.lockHandles[handle] = path
            return FileHandleID(raw: handle)
        }
    }

    public func lockHolder(_ path: String) -> String? {
        (try? withState("lock", path) { state in state.locks[path] }) ?? nil
    }
}
