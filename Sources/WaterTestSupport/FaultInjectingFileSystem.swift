import WaterStore
import WaterSync
import WaterSystem

/// Wraps a file system and fails chosen calls, as a disk that fills up or breaks would.
///
/// ``failStarting(at:of:errno:)`` makes the Nth call of one operation fail, and every one of
/// that operation after it, until ``clearFaults()``: so a test sees both the failure and that
/// writes succeed again once the fault clears. Faults of different operations add up (a disk
/// that refuses both syncs and reads).
public final class FaultInjectingFileSystem: FileSystem {
    public enum Operation: String, Sendable, CaseIterable {
        case write, sync, rename, read
    }

    private struct Fault {
        var startingAt: Int
        var errno: Int32
    }

    private struct State {
        var counts: [Operation: Int] = [:]
        var faults: [Operation: Fault] = [:]
    }

    public let base: any FileSystem
    private let state = Locked(State())

    public init(base: any FileSystem) {
        self.base = base
    }

    /// Fails the `n`th call of `operation` counted from now (1 is the next one) and all later ones.
    public func failStarting(at n: Int, of operation: Operation, errno: Int32) {
        state.withLock { state in
            state.counts[operation] = 0
            state.faults[operation] = Fault(startingAt: n, errno: errno)
        }
    }

    public func clearFaults() {
        state.withLock { $0.faults = [:] }
    }

    private func check(_ operation: Operation, _ path: String) throws(FileSystemError) {
        let errno = state.withLock { state -> Int32? in
            state.counts[operation, default: 0] += 1
            guard let fault = state.faults[operation], state.counts[operation]! >= fault.startingAt
            else { return nil }
            return fault.errno
        }
        if let errno { throw FileSystemError(operation: "\(operation) (injected)", path: path, errno: errno) }
    }

    public func createDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        try base.createDirectory(path, mode: mode)
    }
    public func listDirectory(_ path: String) throws(FileSystemError) -> [String] { try base.listDirectory(path) }
    public func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    public func readFile(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        try check(.read, path)
        return try base.readFile(path, limit: limit)
    }
    public func open(_ path: String, create: Bool, mode: UInt32) throws(FileSystemError) -> FileHandleID {
        try base.open(path, create: create, mode: mode)
    }
    public func write(_ handle: FileHandleID, _ bytes: [UInt8], at offset: Int) throws(FileSystemError) {
        try check(.write, "fd \(handle.raw)")
        try base.write(handle, bytes, at: offset)
    }
    public func size(_ handle: FileHandleID) throws(FileSystemError) -> Int { try base.size(handle) }
    public func truncate(_ handle: FileHandleID, to length: Int) throws(FileSystemError) {
        try base.truncate(handle, to: length)
    }
    public func sync(_ handle: FileHandleID) throws(FileSystemError) {
        try check(.sync, "fd \(handle.raw)")
        try base.sync(handle)
    }
    public func close(_ handle: FileHandleID) { base.close(handle) }
    public func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try check(.rename, source)
        try base.rename(source, to: destination)
    }
    public func remove(_ path: String) throws(FileSystemError) { try base.remove(path) }
    public func syncDirectory(_ path: String) throws(FileSystemError) {
        try check(.sync, path)
        try base.syncDirectory(path)
    }
    public func lockExclusively(_ path: String, owner: String) throws(FileSystemError) -> FileHandleID {
        try base.lockExclusively(path, owner: owner)
    }

    public func lockHolder(_ path: String) -> String? {
        base.lockHolder(path)
    }
}
