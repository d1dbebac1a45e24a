import Foundation
import Testing
import WaterSystem

@testable import WaterStore

/// Where an archive's records are in a stopped server's shared log, to damage them as a failing
/// disk would.
enum LogFiles {
    /// The archive `folder`'s (`accounts`, `household`, `users/<id>`) records in the log of the data
    /// directory `data` that its snapshot does not hold yet, in log order: each chunk's segment
    /// file, its bytes there and its first record's sequence number.
    static func chunks(of folder: String, in data: String) throws -> [(
        path: String, bytes: Range<Int>, sequence: UInt64
    )] {
        let index = try LogIndex.read("\(data)/log", fileSystem: PosixFileSystem())
        let key = try #require(ArchiveKey.of(folder: folder))
        let snapshot = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(data)/\(folder)/snapshot")))
        let position = try #require(SnapshotFile.stamp(of: snapshot)).position
        return (index.chunks[key] ?? []).filter { $0.frameEnd > position }.map {
            ("\(data)/log/\(LogSegment.name(generation: $0.generation))", $0.bytes, $0.firstSequence)
        }
    }

    /// Flips one bit in the middle of `folder`'s chunk number `which` (of ``chunks(of:in:)``);
    /// returns that chunk.
    @discardableResult
    static func damageChunk(of folder: String, in data: String, _ which: Int) throws -> (
        path: String, bytes: Range<Int>, sequence: UInt64
    ) {
        let chunk = try chunks(of: folder, in: data)[which]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: chunk.path)))
        bytes[(chunk.bytes.lowerBound + chunk.bytes.upperBound) / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: chunk.path))
        return chunk
    }

    /// Flips one bit in the middle of `folder`'s snapshot.
    static func damageSnapshot(of folder: String, in data: String) throws {
        let path = "\(data)/\(folder)/snapshot"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
