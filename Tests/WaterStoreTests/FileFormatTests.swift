import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

@testable import WaterStore

@Suite("Snapshot file")
struct SnapshotFileTests {
    let body = Array("a member's archive, protobuf-encoded, as it would be before compression".utf8)

    @Test("round-trips its body")
    func roundTrip() throws {
        let file = SnapshotFile.encode(body: body, version: 2, kind: .member)
        #expect(Array(file.prefix(4)) == Array("WTRA".utf8))
        let decoded = try SnapshotFile.decode(file, kind: .member, versions: 1...2, path: "s")
        #expect(decoded.version == 2 && decoded.body == body)
    }

    @Test("detects every single flipped bit")
    func everyBitFlip() {
        let file = SnapshotFile.encode(body: body, version: 2, kind: .member)
        var undetected = 0
        for bit in 0..<(file.count * 8) {
            var damaged = file
            damaged[bit / 8] ^= 1 << (bit % 8)
            if (try? SnapshotFile.decode(damaged, kind: .member, versions: 1...2, path: "s")) != nil { undetected += 1 }
        }
        #expect(undetected == 0)
    }

    @Test("refuses a version it does not know, and the other kind of archive")
    func versionAndKind() {
        let future = SnapshotFile.encode(body: body, version: 3, kind: .member)
        #expect(throws: ArchiveError.self) { try SnapshotFile.decode(future, kind: .member, versions: 1...2, path: "s") }
        do {
            _ = try SnapshotFile.decode(future, kind: .member, versions: 1...2, path: "s")
        } catch {
            #expect(error.code == .unsupportedVersion)
        }
        let household = SnapshotFile.encode(body: body, version: 1, kind: .household)
        #expect(throws: ArchiveError.self) { try SnapshotFile.decode(household, kind: .member, versions: 1...2, path: "s") }
    }

    @Test("refuses a snapshot built to exhaust memory before inflating it")
    func inflationBomb() throws {
        // A valid file whose header claims 1 GiB: refused from the header, nothing inflated.
        var file = SnapshotFile.encode(body: body, version: 2, kind: .member)
        file.replaceSubrange(8..<12, with: BigEndian.bytes(UInt32(1 << 30)))
        file.replaceSubrange(12..<16, with: BigEndian.bytes(Checksum.crc32(Array(file[0..<12]) + file[16...])))
        #expect {
            try SnapshotFile.decode(file, kind: .member, versions: 1...2, path: "s")
        } throws: { ($0 as? ArchiveError)?.code == .tooLarge }
        // A body that inflates past what the header claims stops at the claim.
        let bomb = [UInt8](repeating: 0, count: 4 << 20)
        var lying = SnapshotFile.encode(body: bomb, version: 2, kind: .member)
        lying.replaceSubrange(8..<12, with: BigEndian.bytes(UInt32(1024)))
        lying.replaceSubrange(12..<16, with: BigEndian.bytes(Checksum.crc32(Array(lying[0..<12]) + lying[16...])))
        #expect {
            try SnapshotFile.decode(lying, kind: .member, versions: 1...2, path: "s")
        } throws: { ($0 as? ArchiveError)?.code == .corrupt }
    }
}

@Suite("Journal file")
struct JournalFileTests {
    let records: [[UInt8]] = (0..<5).map { n in Array("record \(n) with some bytes".utf8) }

    private func journal() -> [UInt8] {
        JournalFile.header(kind: .member, generation: 7)
            + records.chunked(2).flatMap { JournalFile.frame(records: $0) }
    }

    @Test("reads back every record of every frame")
    func roundTrip() throws {
        let contents = try JournalFile.read(journal(), kind: .member, path: "j")
        #expect(contents.generation == 7)
        #expect(contents.records.map(Array.init) == records)
        #expect(contents.validLength == journal().count)
    }

    @Test("cuts a torn last frame at every length it could have been cut to")
    func tornTail() throws {
        let whole = journal()
        let lastFrame = JournalFile.frame(records: [records[4]])
        let start = whole.count - lastFrame.count
        for length in start..<whole.count {
            let contents = try JournalFile.read(Array(whole.prefix(length)), kind: .member, path: "j")
            #expect(contents.records.count == 4 && contents.validLength == start)
        }
        // A tail of zeros (the file grew, the data never came) is torn too.
        let zeros = try JournalFile.read(whole + [UInt8](repeating: 0, count: 40), kind: .member, path: "j")
        #expect(zeros.records.count == 5 && zeros.validLength == whole.count)
    }

    @Test("detects every flipped bit in the header and in every frame but the last")
    func everyBitFlip() {
        let whole = journal()
        let lastFrameStart = whole.count - JournalFile.frame(records: [records[4]]).count
        var undetected: [Int] = []
        for bit in 0..<(lastFrameStart * 8) {
            var damaged = whole
            damaged[bit / 8] ^= 1 << (bit % 8)
            if (try? JournalFile.read(damaged, kind: .member, path: "j")) != nil { undetected.append(bit) }
        }
        #expect(undetected.isEmpty)
    }

    @Test("refuses a journal of an unknown version")
    func unknownVersion() {
        var future = journal()
        future.replaceSubrange(4..<6, with: BigEndian.bytes(UInt16(9)))
        future.replaceSubrange(16..<20, with: BigEndian.bytes(Checksum.crc32(Array(future[0..<16]))))
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
