import Testing
import WaterCore
import WaterTestSupport

@testable import WaterStore

/// The shared log's frames and segments, byte by byte.
@Suite("Log frames")
struct LogFrameTests {
    /// Three archives' records in one frame, as a group commit writes them.
    static let chunks: [(key: UInt64, records: [[UInt8]])] = [
        (ArchiveKey.member(1), [Array("first drink".utf8), Array("second".utf8)]),
        (ArchiveKey.household, [Array("a todo".utf8)]),
        (ArchiveKey.member(2), [Array("another member's drink".utf8)]),
    ]

    static func frame() -> [UInt8] {
        var records: [UInt8] = []
        var ranges: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
        for (index, chunk) in chunks.enumerated() {
            let start = records.count
            for record in chunk.records { LogFrame.appendRecord(record, to: &records) }
            ranges.append((chunk.key, UInt64(10 * index + 1), chunk.records.count, start..<records.count))
        }
        var frame: [UInt8] = []
        records.withUnsafeBytes { LogFrame.encode(chunks: ranges, records: $0, into: &frame) }
        return frame
    }

    static func decode(_ bytes: [UInt8]) -> LogFrame.Found {
        bytes.withUnsafeBytes { LogFrame.decode($0, at: 0, end: bytes.count) }
    }

    @Test("round-trips: every archive's chunk, its sequence numbers and its records")
    func roundTrip() throws {
        let bytes = Self.frame()
        #expect(bytes.count == LogFrame.length(entries: 3, chunkBytes: 4 * 4 + 11 + 6 + 6 + 22))
        guard case .frame(let frame) = Self.decode(bytes) else {
            Issue.record("the frame does not read")
            return
        }
        #expect(frame.isPristine && frame.end == bytes.count)
        #expect(frame.entries.map(\.entry.key) == Self.chunks.map(\.key))
        #expect(frame.entries.map(\.entry.firstSequence) == [1, 11, 21])
        for ((entry, chunk, verified), expected) in zip(frame.entries, Self.chunks) {
            #expect(verified && entry.recordCount == expected.records.count)
            let records = bytes.withUnsafeBytes {
                LogFrame.recordRanges(in: UnsafeRawBufferPointer(rebasing: $0[chunk]))
            }
            #expect(
                records?.map { Array(bytes[(chunk.lowerBound + $0.lowerBound)..<(chunk.lowerBound + $0.upperBound)]) }
                    == expected.records)
        }
    }

    @Test("one flipped bit anywhere: the frame still says whose it was, and only the chunk hit fails")
    func everyBitFlip() {
        let bytes = Self.frame()
        guard case .frame(let intact) = Self.decode(bytes) else { return }
        for bit in 0..<(bytes.count * 8) {
            var damaged = bytes
            damaged[bit / 8] ^= 1 << (bit % 8)
            guard case .frame(let frame) = Self.decode(damaged) else {
                Issue.record("bit \(bit): the frame lost its owners")
                continue
            }
            #expect(!frame.isPristine, "bit \(bit) went unnoticed")
            #expect(frame.end == bytes.count && frame.entries.map(\.entry) == intact.entries.map(\.entry), "bit \(bit)")
            let byte = bit / 8
            for (index, (_, chunk, verified)) in frame.entries.enumerated() {
                #expect(verified == !chunk.contains(byte), "bit \(bit), chunk \(index)")
            }
        }
    }

    @Test("a frame cut short anywhere does not read")
    func everyPrefix() {
        let bytes = Self.frame()
        for length in 1..<bytes.count {
            #expect(!Self.decode(Array(bytes.prefix(length))).isFrame, "cut at \(length)")
        }
        #expect(Self.decode([UInt8](repeating: 0, count: 40)).isUnused)
    }
}

extension LogFrame.Found {
    var isUnused: Bool { if case .unused = self { true } else { false } }
    var isFrame: Bool { if case .frame = self { true } else { false } }
}

@Suite("Log segments")
struct LogSegmentTests {
    static let length = 4096

    /// A segment holding `frames` copies of the test frame.
    static func segment(frames: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        let header = LogSegment.header(generation: 5, length: length, previousEnd: 900)
        bytes.replaceSubrange(0..<header.count, with: header)
        var offset = header.count
        for _ in 0..<frames {
            let frame = LogFrameTests.frame()
            bytes.replaceSubrange(offset..<(offset + frame.count), with: frame)
            offset += frame.count
        }
        return bytes
    }

    static func scan(_ bytes: [UInt8]) -> LogSegment.Scan {
        bytes.withUnsafeBytes { LogSegment.scan($0) }
    }

    @Test("reads its header and frames, and stops at the zeros")
    func frames() {
        let bytes = Self.segment(frames: 4)
        #expect(
            bytes.withUnsafeBytes { LogSegment.readHeader($0) } == .valid(generation: 5, length: 4096, previousEnd: 900)
        )
        let scan = Self.scan(bytes)
        let frameLength = LogFrameTests.frame().count
        #expect(scan.frames.count == 4 && scan.tail == nil && scan.unreadable.isEmpty)
        #expect(scan.validEnd == LogSegment.headerLength + 4 * frameLength)
    }

    @Test("a frame destroyed in the middle is stepped over; the frames after it still read")
    func resynchronises() {
        var bytes = Self.segment(frames: 4)
        let frameLength = LogFrameTests.frame().count
        let second = LogSegment.headerLength + frameLength
        for index in second..<(second + frameLength) { bytes[index] = 0xA5 }
        let scan = Self.scan(bytes)
        #expect(scan.frames.count == 3 && scan.tail == nil)
        #expect(scan.unreadable == [second..<(second + frameLength)])
    }

    @Test("a last write cut anywhere is the tail, and the frames before it read")
    func tornTail() {
        let whole = Self.segment(frames: 3)
        let frameLength = LogFrameTests.frame().count
        let last = LogSegment.headerLength + 2 * frameLength
        // Only the copy of the directory lost: every record of the last write is there, whole.
        let copyLength = 3 * LogFrame.entryLength + 8
        for kept in 1..<frameLength {
            var bytes = whole
            for index in (last + kept)..<(last + frameLength) { bytes[index] = 0 }
            let scan = Self.scan(bytes)
            #expect(scan.unreadable.isEmpty)
            if kept >= frameLength - copyLength {
                #expect(scan.frames.count == 3 && scan.tail == nil, "kept \(kept)")
            } else if whole[last..<(last + kept)].allSatisfy({ $0 == 0 }) {
                // What reached the disk is zeros (the length's high bytes): as if nothing had.
                #expect(scan.frames.count == 2 && scan.validEnd == last && scan.tail == nil, "kept \(kept)")
            } else {
                #expect(scan.frames.count == 2, "kept \(kept)")
                #expect(scan.validEnd == last && scan.tail?.lowerBound == last, "kept \(kept)")
            }
        }
    }

    @Test(
        "issue 31: the newest frame written whole and damaged since is kept, unverified; one with a sector of zeros is torn"
    )
    func damagedNewestFrame() {
        let frameLength = LogFrameTests.frame().count
        let last = LogSegment.headerLength + 2 * frameLength
        var damaged = Self.segment(frames: 3)
        damaged[last + frameLength / 2] ^= 0x01
        let scan = Self.scan(damaged)
        #expect(scan.tail == nil && scan.frames.count == 3 && scan.validEnd == last + frameLength)
        #expect(scan.frames.last?.entries.contains { !$0.verified } == true, "its damaged chunk is named")
        // A frame of more than two sectors, its middle sector never written: torn.
        var records: [UInt8] = []
        LogFrame.appendRecord([UInt8](repeating: 0x5A, count: 3 * LogSegment.sectorLength), to: &records)
        var big: [UInt8] = []
        records.withUnsafeBytes { LogFrame.encode(chunks: [(9, 1, 1, 0..<records.count)], records: $0, into: &big) }
        var bytes = Self.segment(frames: 1)
        let offset = LogSegment.headerLength + frameLength
        bytes.replaceSubrange(offset..<(offset + big.count), with: big)
        let sector = (offset / LogSegment.sectorLength + 1) * LogSegment.sectorLength
        var torn = bytes
        for index in sector..<(sector + LogSegment.sectorLength) { torn[index] = 0 }
        #expect(Self.scan(torn).tail == offset..<(offset + big.count) && Self.scan(torn).frames.count == 1)
        // The same frame with 511 of those bytes zero and one not: damage, kept.
        torn[sector + 100] = 1
        #expect(Self.scan(torn).tail == nil && Self.scan(torn).frames.count == 2)
        #expect(Self.scan(bytes).frames.last?.entries.allSatisfy(\.verified) == true, "the frame itself reads")
    }

    @Test("an unused segment is zeros, and a damaged header is told apart")
    func headers() {
        let zeros = [UInt8](repeating: 0, count: 64)
        #expect(zeros.withUnsafeBytes { LogSegment.readHeader($0) } == .unused)
        var damaged = Self.segment(frames: 1)
        damaged[10] ^= 1
        #expect(damaged.withUnsafeBytes { LogSegment.readHeader($0) } == .damaged)
        #expect(Self.scan(damaged).frames.count == 1, "the frames read without the header")
        #expect(LogSegment.generation(ofName: LogSegment.name(generation: 0x2a)) == 0x2a)
        #expect(LogSegment.generation(ofName: "000000000000002A") == nil)
        #expect(LogSegment.generation(ofName: "000000000000002a.tmp") == nil)
    }
}
