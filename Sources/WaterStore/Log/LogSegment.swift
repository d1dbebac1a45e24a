/// One file of the shared log, `DATA/log/<generation, 16 hex>`: a fixed length, made full of
/// zeros before it is first written (so an fdatasync never has a file size to update), then a
/// header and frames.
///
///     header (32 bytes, written with the segment's first frame):
///       | "WTRL" | version u16 | 0 u16 | generation u64 | segment length u32 |
///       | previous end u32 | 0 u32 | CRC-32 of the 28 bytes before |
///
/// "Previous end" is where the frames of segment `generation - 1` end: the chain that finds a
/// predecessor cut short, or frames lost from its end, without ever writing to it again. A
/// segment whose header is still zeros was made ahead of time and never used.
enum LogSegment {
    static let magic = Array("WTRL".utf8)
    static let version: UInt16 = 1
    static let headerLength = 32
    /// A segment is never longer; a longer file is refused, not read.
    static let maximumLength = 256 << 20

    static func name(generation: UInt64) -> String {
        let hex = String(generation, radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The generation a file name stands for, or nil for any other name.
    static func generation(ofName name: String) -> UInt64? {
        guard name.count == 16, name.allSatisfy(\.isHexDigit), name == name.lowercased() else { return nil }
        return UInt64(name, radix: 16)
    }

    static func header(generation: UInt64, length: Int, previousEnd: Int) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(headerLength)
        header += magic
        header.appendBigEndian(version)
        header.appendBigEndian(UInt16(0))
        header.appendBigEndian(generation)
        header.appendBigEndian(UInt32(length))
        header.appendBigEndian(UInt32(previousEnd))
        header.appendBigEndian(UInt32(0))
        header.appendBigEndian(Checksum.crc32(header))
        return header
    }

    /// A segment's header as read back.
    enum Header: Equatable {
        /// All zeros: made ahead of time, never written.
        case unused
        case valid(generation: UInt64, length: Int, previousEnd: Int)
        /// Neither: damage, or a first write a crash cut short.
        case damaged
        /// A version this code does not know.
        case unsupported(UInt16)
    }

    static func readHeader(_ bytes: UnsafeRawBufferPointer) -> Header {
        guard bytes.count >= headerLength else {
            return bytes.firstNonZero() == nil ? .unused : .damaged
        }
        let header = UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength])
        if header.firstNonZero() == nil { return .unused }
        guard Array(header[0..<4]) == magic,
            Checksum.crc32(UnsafeRawBufferPointer(rebasing: header[0..<28]))
                == header.loadBigEndian(UInt32.self, at: 28)
        else { return .damaged }
        let version = header.loadBigEndian(UInt16.self, at: 4)
        guard version == Self.version else { return .unsupported(version) }
        return .valid(
            generation: header.loadBigEndian(UInt64.self, at: 8),
            length: Int(header.loadBigEndian(UInt32.self, at: 16)),
            previousEnd: Int(header.loadBigEndian(UInt32.self, at: 20)))
    }

    /// What reading a segment's frames found.
    struct Scan {
        var frames: [LogFrame.Decoded] = []
        /// Byte ranges that are neither a frame whose directory reads nor zeros, each followed by
        /// a readable frame: damage, whose owner the frames' directories cannot name.
        var unreadable: [Range<Int>] = []
        /// Where the frames end: the next frame is written here.
        var validEnd: Int
        /// What follows the last frame that reads, when it is not zeros and no readable frame
        /// comes after it: a write a crash cut short, or damage that looks exactly like one.
        var tail: Range<Int>?
    }

    /// Reads every frame of a segment's bytes after its header. A range that does not read is
    /// stepped over a byte at a time until a frame reads again (a damaged spot costs only
    /// itself); what does not read at the very end, with nothing readable after it, is the
    /// tail. A last frame whose chunks do not all verify is part of the tail too when
    /// `lastMayBeTorn` (the segment being written): the one write a crash can cut short is the
    /// last.
    static func scan(_ bytes: UnsafeRawBufferPointer, lastMayBeTorn: Bool = true) -> Scan {
        let end = bytes.count
        var scan = Scan(validEnd: headerLength)
        var offset = headerLength
        var unreadableStart: Int?
        while offset < end {
            switch LogFrame.decode(bytes, at: offset, end: end) {
            case .frame(let frame):
                if let start = unreadableStart { scan.unreadable.append(start..<offset) }
                unreadableStart = nil
                scan.frames.append(frame)
                offset = frame.end
                scan.validEnd = offset
            case .unused where unreadableStart == nil:
                // Zeros up to the end are unused space; zeros before more frames are damage.
                guard let next = bytes.firstNonZero(from: offset) else {
                    offset = end
                    break
                }
                unreadableStart = offset
                offset = next
            case .unused:
                // Zeros inside damage: on to the next byte that is not one.
                offset = bytes.firstNonZero(from: offset) ?? end
            case .unreadable:
                unreadableStart = unreadableStart ?? offset
                offset += 1
            }
        }
        if let start = unreadableStart {
            let last = bytes.endOfNonZero()
            if last > start { scan.tail = start..<last }
        }
        // The last frame read, with something wrong inside it and nothing after it, may be a
        // write that did not reach the disk whole: only in the segment being written, since a
        // segment is synced whole before the next one takes a frame. It is one only when part
        // of it is still the zeros a segment is made of; otherwise it reached the disk whole
        // and was damaged since (its reply may have been sent): its chunks stay, unverified,
        // and protect the archives they name, as damage anywhere else does.
        if lastMayBeTorn, scan.tail == nil, let last = scan.frames.last, last.entries.contains(where: { !$0.verified }),
            isUnfinished(UnsafeRawBufferPointer(rebasing: bytes[last.offset..<last.end]), at: last.offset)
        {
            scan.frames.removeLast()
            scan.tail = last.offset..<last.end
            scan.validEnd = last.offset
        }
        return scan
    }

    /// The unit a disk writes whole or not at all (a sector); a write cut short leaves some
    /// of them as they were: zeros, in a segment made full of zeros ahead of time.
    static let sectorLength = 512

    /// Whether `frame` (at byte `offset` of its segment) still holds zeros where a write of it
    /// would have put data: its closing checksum, or a whole sector inside it. Neither happens
    /// in a frame that was written whole (its checksum is not zero but one time in 2^32, and its
    /// directory, lengths and protobuf records never make 512 zeros); a flipped bit makes neither.
    static func isUnfinished(_ frame: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        if frame.count >= 4, frame[(frame.count - 4)...].allSatisfy({ $0 == 0 }) { return true }
        var sector = (offset + sectorLength - 1) / sectorLength * sectorLength - offset
        while sector + sectorLength <= frame.count {
            if frame[sector..<(sector + sectorLength)].allSatisfy({ $0 == 0 }) { return true }
            sector += sectorLength
        }
        return false
    }
}
