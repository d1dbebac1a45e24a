import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

@testable import WaterStore

@Suite("Snapshot file")
struct SnapshotFileTests {
    let body = Array("a member's archive, protobuf-encoded, as it would be before compression".utf8)
    let stamp = SnapshotFile.Stamp(lastSequence: 41, position: LogPosition(generation: 3, offset: 4096))

    @Test("round-trips its body and its stamp; the stamp reads without inflating")
    func roundTrip() throws {
        let file = SnapshotFile.encode(body: body, version: 2, kind: .member, stamp: stamp)
        #expect(Array(file.prefix(4)) == Array("WTRS".utf8))
        let decoded = try SnapshotFile.decode(file, kind: .member, versions: 1...2, path: "s")
        #expect(decoded.version == 2 && decoded.body == body && decoded.stamp == stamp)
        #expect(SnapshotFile.stamp(of: file) == stamp)
        // Format 1's snapshots (no stamp) still read, for the migration.
        let legacy = SnapshotFile.encodeLegacy(body: body, version: 2, kind: .member)
        #expect(Array(legacy.prefix(4)) == Array("WTRA".utf8) && SnapshotFile.isLegacy(legacy))
        let old = try SnapshotFile.decode(legacy, kind: .member, versions: 1...2, path: "s")
        #expect(old.body == body && old.stamp == nil && SnapshotFile.stamp(of: legacy) == nil)
    }

    @Test("detects every single flipped bit, in the body and in the stamp")
    func everyBitFlip() {
        let file = SnapshotFile.encode(body: body, version: 2, kind: .member, stamp: stamp)
        var undetected = 0
        for bit in 0..<(file.count * 8) {
            var damaged = file
            damaged[bit / 8] ^= 1 << (bit % 8)
            if (try? SnapshotFile.decode(damaged, kind: .member, versions: 1...2, path: "s")) != nil { undetected += 1 }
            if SnapshotFile.stamp(of: damaged) != nil { undetected += 1 }
        }
        #expect(undetected == 0)
    }

    @Test("refuses a version it does not know, and the other kind of archive")
    func versionAndKind() {
        let future = SnapshotFile.encode(body: body, version: 3, kind: .member, stamp: stamp)
        #expect {
            try SnapshotFile.decode(future, kind: .member, versions: 1...2, path: "s")
        } throws: { ($0 as? ArchiveError)?.code == .unsupportedVersion }
        let household = SnapshotFile.encode(body: body, version: 1, kind: .household, stamp: stamp)
        #expect(throws: ArchiveError.self) {
            try SnapshotFile.decode(household, kind: .member, versions: 1...2, path: "s")
        }
    }

    @Test("refuses a snapshot built to exhaust memory before inflating it")
    func inflationBomb() throws {
        func resealed(_ file: [UInt8]) -> [UInt8] {
            var file = file
            file.replaceSubrange(36..<40, with: BigEndian.bytes(Checksum.crc32(Array(file[0..<36]) + file[40...])))
            return file
        }
        // A valid file whose header claims 1 GiB: refused from the header, nothing inflated.
        var file = SnapshotFile.encode(body: body, version: 2, kind: .member, stamp: stamp)
        file.replaceSubrange(8..<12, with: BigEndian.bytes(UInt32(1 << 30)))
        #expect {
            try SnapshotFile.decode(resealed(file), kind: .member, versions: 1...2, path: "s")
        } throws: { ($0 as? ArchiveError)?.code == .tooLarge }
        // A body that inflates past what the header claims stops at the claim.
        let bomb = [UInt8](repeating: 0, count: 4 << 20)
        var lying = SnapshotFile.encode(body: bomb, version: 2, kind: .member, stamp: stamp)
        lying.replaceSubrange(8..<12, with: BigEndian.bytes(UInt32(1024)))
        #expect {
            try SnapshotFile.decode(resealed(lying), kind: .member, versions: 1...2, path: "s")
        } throws: { ($0 as? ArchiveError)?.code == .corrupt }
    }
}

@Suite("Journal file")
struct JournalFileTests {
    let records: [[UInt8]] = (0..<5).map { n in Array("record \(n) with some bytes".utf8) }
    static let length = 4096

    /// A segment with the records written in frames of two, as the committer would.
    private func journal(sealed: Bool = false) -> [UInt8] {
        var bytes = JournalFile.segment(kind: .member, generation: 7, startsAfter: 40, length: Self.length)
        var offset = JournalFile.headerLength
        var frames = records.chunked(2).map { JournalFile.frame(records: $0) }
        if sealed { frames.append(JournalFile.seal(nextGeneration: 8, lastSequence: 45)) }
        for frame in frames {
            bytes.replaceSubrange(offset..<(offset + frame.count), with: frame)
            offset += frame.count
        }
        return bytes
    }

    private var framesEnd: Int {
        JournalFile.headerLength + records.chunked(2).map { JournalFile.frame(records: $0).count }.reduce(0, +)
    }

    @Test("reads back every record of every frame, the header's chain and a seal")
    func roundTrip() throws {
        let contents = try JournalFile.read(journal(), kind: .member, path: "j")
        #expect(contents.version == 2 && contents.generation == 7 && contents.startsAfter == 40)
        #expect(contents.records.map(Array.init) == records)
        #expect(contents.validLength == framesEnd && contents.tornTail == nil && contents.seal == nil)
        let sealed = try JournalFile.read(journal(sealed: true), kind: .member, path: "j")
        #expect(sealed.seal?.nextGeneration == 8 && sealed.seal?.lastSequence == 45)
        #expect(sealed.records.count == 5)
    }

    @Test("a torn last frame, cut at every length it could have been cut to, is a torn tail")
    func tornTail() throws {
        let whole = journal()
        let lastFrame = JournalFile.frame(records: [records[4]])
        let start = framesEnd - lastFrame.count
        for length in start..<framesEnd {
            var torn = whole
            torn.replaceSubrange(length..<framesEnd, with: [UInt8](repeating: 0, count: framesEnd - length))
            let contents = try JournalFile.read(torn, kind: .member, path: "j")
            #expect(contents.records.count == 4 && contents.validLength == start)
            // The frame starts with its length, whose first bytes are zeros: keeping only those
            // leaves nothing to see.
            let keptAnything = whole[start..<length].contains { $0 != 0 }
            #expect(
                keptAnything ? contents.tornTail?.offset == start : contents.tornTail == nil,
                "kept \(length - start) bytes")
            if length >= start + JournalFile.frameHeaderLength + 5 { #expect(contents.tornTail?.records == 1) }
        }
    }

    @Test("a journal cut short, or grown, anywhere is refused: it no longer has the length it was made with")
    func cutShort() {
        let whole = journal()
        for length in stride(from: JournalFile.headerLength, to: whole.count, by: 97) + [whole.count - 1] {
            #expect { try JournalFile.read(Array(whole.prefix(length)), kind: .member, path: "j") } throws: {
                ($0 as? ArchiveError)?.message.contains("cut short") == true
            }
        }
        #expect { try JournalFile.read(whole + [0], kind: .member, path: "j") } throws: {
            ($0 as? ArchiveError)?.message.contains("added") == true
        }
    }

    @Test("bytes past a torn frame's own end, or after a seal, are damage")
    func bytesPastTheEnd() {
        var past = journal()
        let lastFrame = JournalFile.frame(records: [records[4]])
        past[framesEnd - 3] ^= 0xff  // the last frame is now torn...
        past[framesEnd + 200] = 1  // ...and something lies beyond its end
        #expect { try JournalFile.read(past, kind: .member, path: "j") } throws: {
            ($0 as? ArchiveError)?.message.contains("past its end") == true
        }
        var afterSeal = journal(sealed: true)
        afterSeal[framesEnd + JournalFile.sealLength + 5] = 1
        #expect { try JournalFile.read(afterSeal, kind: .member, path: "j") } throws: {
            ($0 as? ArchiveError)?.message.contains("after its seal") == true
        }
        #expect(lastFrame.count > 0)
    }

    @Test("detects every flipped bit in the header and in every frame but the last")
    func everyBitFlip() {
        let whole = journal()
        let lastFrameStart = framesEnd - JournalFile.frame(records: [records[4]]).count
        var undetected: [Int] = []
        for bit in 0..<(lastFrameStart * 8) {
            var damaged = whole
            damaged[bit / 8] ^= 1 << (bit % 8)
            if (try? JournalFile.read(damaged, kind: .member, path: "j")) != nil { undetected.append(bit) }
        }
        #expect(undetected.isEmpty)
    }

    @Test("still reads a version 1 journal, whose torn tail is the end of the file")
    func version1() throws {
        let start =
            Array("WTRJ".utf8) + BigEndian.bytes(UInt16(1)) + [ArchiveKind.member.rawValue, 0]
            + BigEndian.bytes(UInt64(3))
        var bytes = start + BigEndian.bytes(Checksum.crc32(start))
        for pair in records.chunked(2) {
            var payload: [UInt8] = []
            for record in pair { payload += BigEndian.bytes(UInt32(record.count)) + record }
            let length = UInt32(payload.count)
            bytes +=
                BigEndian.bytes(length) + BigEndian.bytes(~length) + BigEndian.bytes(Checksum.crc32(payload)) + payload
        }
        let contents = try JournalFile.read(bytes, kind: .member, path: "j")
        #expect(contents.version == 1 && contents.generation == 3 && contents.startsAfter == nil)
        #expect(contents.records.map(Array.init) == records)
        let torn = try JournalFile.read(Array(bytes.dropLast(5)), kind: .member, path: "j")
        #expect(torn.records.count == 4 && torn.tornTail?.length == bytes.count - 5 - torn.validLength)
    }

    @Test("refuses a journal of an unknown version")
    func unknownVersion() {
        var future = journal()
        future.replaceSubrange(4..<6, with: BigEndian.bytes(UInt16(9)))
        future.replaceSubrange(28..<32, with: BigEndian.bytes(Checksum.crc32(Array(future[0..<28]))))
        #expect { try JournalFile.read(future, kind: .member, path: "j") } throws: {
            ($0 as? ArchiveError)?.code == .unsupportedVersion
        }
    }
}

extension Array {
    fileprivate func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
