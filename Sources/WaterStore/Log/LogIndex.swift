import Glibc
import WaterSystem

/// What the shared log holds, read once when a data directory is opened (and by `check` and
/// `repair`, which only read): where each archive's chunks are, and every place in the log
/// that could not be read.
///
/// Reading changes nothing. The store cuts the torn tail afterwards (``tail``), before it
/// appends; archives load their chunks from here when first used (``ArchiveLog``).
struct LogIndex: Sendable {
    /// One archive's records in one frame.
    struct Chunk: Sendable, RecordRun {
        var generation: UInt64
        /// The chunk's bytes in its segment file.
        var bytes: Range<Int>
        var firstSequence: UInt64
        var recordCount: Int
        /// The end of the frame it is in: a snapshot at or past this holds it.
        var frameEnd: LogPosition
        /// Whether its checksum holds, and the checksum (a file that changed since it was read
        /// is noticed).
        var verified: Bool
        var crc: UInt32
    }

    /// A place in the log that cannot be read, and whose owner no directory names.
    struct Damage: Sendable, Hashable {
        var position: LogPosition
        var description: String
    }

    /// One segment file in use.
    struct Segment: Sendable {
        var generation: UInt64
        var length: Int
        /// Where its frames end (the writer goes on here in the newest).
        var validEnd: Int
        /// The archives with chunks in it, and the end of the last frame holding each one's:
        /// the segment may be removed once every one of them has a snapshot past that.
        var lastFrameEnds: [UInt64: LogPosition]
    }

    var chunks: [UInt64: [Chunk]] = [:]
    var damage: [Damage] = []
    /// In generation order; the last one is the one being appended to.
    var segments: [Segment] = []
    /// The torn last write of the newest segment: zeroed before anything is appended after it.
    /// It was never acknowledged (its sync never finished).
    var tail: (generation: UInt64, bytes: Range<Int>, keys: [UInt64])?
    /// Files of the log directory that hold nothing: replacements a crash left half made.
    var unusedFiles: [String] = []
    /// The segment made ahead of time for the writer to go on in, when there is one.
    var premade: UInt64?
    /// The highest generation of any segment file, read or not: a new segment always comes after
    /// it, so nothing the index could not read is ever overwritten.
    var highestGeneration: UInt64 = 0
    /// Things found wrong that hold no records (a damaged header, stray bytes in unused space,
    /// a damaged copy of a frame's directory): reported, never a reason to refuse an archive.
    var notices: [String] = []

    /// The newest position written: where a snapshot taken now stands.
    var end: LogPosition {
        segments.last.map { LogPosition(generation: $0.generation, offset: $0.validEnd) } ?? .start
    }

    /// Why the archive `key`, whose snapshot holds the log up to `position` and whose last
    /// folded record is `sequence`, cannot be trusted past it; nil when every chunk it has after
    /// that verifies and its records follow one another.
    ///
    /// Damage that no directory names counts against an archive only when none of its chunks
    /// after the damage proves that nothing of it was lost there (its records going on exactly
    /// where they stopped before).
    func problem(for key: UInt64, after position: LogPosition, sequence: UInt64) -> String? {
        var last = sequence
        let mine = (chunks[key] ?? []).filter { $0.frameEnd > position }
        for chunk in mine {
            guard chunk.verified else {
                return "its records \(chunk.firstSequence)-\(chunk.lastSequence) in "
                    + "\(LogPosition(generation: chunk.generation, offset: chunk.bytes.lowerBound)) are damaged"
            }
            guard chunk.firstSequence == last + 1 else {
                return chunk.firstSequence <= last
                    ? "the log repeats its record \(chunk.firstSequence) after record \(last)"
                    : "the log skips from its record \(last) to \(chunk.firstSequence)"
            }
            last = chunk.lastSequence
        }
        let lastChunkEnd = mine.last?.frameEnd ?? position
        if let damage = damage.first(where: { $0.position >= position && $0.position >= lastChunkEnd }) {
            return "\(damage.description), after its last record in the log, and the damaged part may have held its "
                + "latest writes"
        }
        return nil
    }
}

extension LogIndex {
    /// Reads every segment of the log directory at `directory`.
    /// - Throws: only when the directory cannot be listed or a file cannot be read at all; what
    ///   is wrong inside the files is recorded, not thrown.
    static func read(_ directory: String, fileSystem: any FileSystem) throws(FileSystemError) -> LogIndex {
        var index = LogIndex()
        let names = try fileSystem.listDirectory(directory)
        index.unusedFiles = names.filter { $0.hasSuffix(".tmp") }
        let files = names.compactMap { name in LogSegment.generation(ofName: name).map { ($0, name) } }
            .sorted { $0.0 < $1.0 }
        var reading = Reading()
        index.highestGeneration = files.last?.0 ?? 0
        var segments = files[...]
        // The newest file may be one made ahead of time, never written: the one before it is
        // then the newest in use, the only one whose last write a crash can have cut short.
        if let (generation, name) = files.last,
            let bytes = try? fileSystem.readFile("\(directory)/\(name)", limit: LogSegment.maximumLength),
            bytes.withUnsafeBytes({ $0.firstNonZero() == nil })
        {
            index.premade = generation
            segments = segments.dropLast()
        }
        for (generation, name) in segments {
            let bytes: [UInt8]
            let isNewest = generation == segments.last?.0
            do {
                bytes = try fileSystem.readFile("\(directory)/\(name)", limit: LogSegment.maximumLength)
            } catch  where error.errno == EFBIG {
                index.damage.append(
                    Damage(
                        position: LogPosition(generation: generation, offset: 0),
                        description: "the log file \(name) is larger than any segment is made"))
                reading.previous = nil
                continue
            }
            bytes.withUnsafeBytes { raw in
                index.add(raw, generation: generation, name: name, isNewest: isNewest, &reading)
            }
        }
        index.settle(&reading, next: nil)
        return index
    }

    /// What reading one segment leaves for the next: where it ended, and what followed its
    /// last frame, which the next segment's header tells apart (unused space, or frames lost).
    private struct Reading {
        var previous: (generation: UInt64, name: String, validEnd: Int, tail: Range<Int>?)?
    }

    /// Decides what followed the previous segment's last frame, now that the next segment's
    /// header says where that segment's frames end (nil: it cannot say).
    private mutating func settle(_ reading: inout Reading, next previousEnd: Int?) {
        guard let previous = reading.previous, let tail = previous.tail else { return }
        if previousEnd == previous.validEnd {
            notices.append(
                "the log file \(previous.name) has \(tail.count) stray bytes at byte \(tail.lowerBound), after its last frame"
            )
        } else {
            damage.append(
                Damage(
                    position: LogPosition(generation: previous.generation, offset: tail.lowerBound),
                    description: "\(tail.count) bytes of the log file \(previous.name) at byte \(tail.lowerBound) do "
                        + "not read, and the log goes on after them"))
        }
        reading.previous?.tail = nil
    }

    private mutating func add(
        _ bytes: UnsafeRawBufferPointer, generation: UInt64, name: String, isNewest: Bool, _ reading: inout Reading
    ) {
        var scan = LogSegment.scan(bytes, lastMayBeTorn: isNewest)
        guard
            let length = checkHeader(
                bytes, generation: generation, name: name, isNewest: isNewest, scan: scan, &reading)
        else { return }
        noteUnreadable(scan, generation: generation, name: name)
        let pendingTail = takeTornTail(
            &scan, bytes, generation: generation, name: name, isNewest: isNewest, length: length)
        segments.append(indexFrames(scan, generation: generation, name: name, length: length))
        reading.previous = (generation, name, scan.validEnd, pendingTail)
    }

    /// The segment's length as its header gives it, after checking the header and its chain to
    /// the previous segment; nil when the segment ends here (a cut first write, a version this
    /// code does not read).
    private mutating func checkHeader(
        _ bytes: UnsafeRawBufferPointer, generation: UInt64, name: String, isNewest: Bool, scan: LogSegment.Scan,
        _ reading: inout Reading
    ) -> Int? {
        var length = bytes.count
        switch LogSegment.readHeader(bytes) {
        case .unused where scan.frames.isEmpty && isNewest:
            // A first write (header and frame at once) that a crash cut short: cut.
            settle(&reading, next: nil)
            tail = (generation, 0..<(scan.tail?.upperBound ?? 0), [])
            segments.append(Segment(generation: generation, length: length, validEnd: 0, lastFrameEnds: [:]))
            reading.previous = (generation, name, 0, nil)
            return nil
        case .unused, .damaged:
            // The frames read on their own; only the chain to the previous segment cannot be
            // checked.
            notices.append("the log file \(name) has a damaged header; its frames are read without it")
            settle(&reading, next: nil)
        case .unsupported(let version):
            settle(&reading, next: nil)
            damage.append(
                Damage(
                    position: LogPosition(generation: generation, offset: 0),
                    description: "the log file \(name) is version \(version), which this code does not read"))
            reading.previous = nil
            return nil
        case .valid(let headerGeneration, let headerLength, let end):
            length = headerLength
            if headerGeneration != generation {
                notices.append("the log file \(name) says it is \(LogSegment.name(generation: headerGeneration))")
            }
            if bytes.count != headerLength {
                damage.append(
                    Damage(
                        position: LogPosition(generation: generation, offset: min(bytes.count, headerLength)),
                        description: "the log file \(name) is \(bytes.count) bytes long but was made "
                            + "\(headerLength) bytes long"))
            }
            if let previous = reading.previous {
                if previous.generation + 1 != generation {
                    damage.append(
                        Damage(
                            position: LogPosition(generation: previous.generation + 1, offset: 0),
                            description:
                                "the log file \(LogSegment.name(generation: previous.generation + 1)) is missing"))
                } else if previous.validEnd != end {
                    damage.append(
                        Damage(
                            position: LogPosition(
                                generation: previous.generation, offset: min(previous.validEnd, end)),
                            description: "the log file \(previous.name) ends at byte \(previous.validEnd), but "
                                + "\(name) says it ends at byte \(end)"))
                }
            }
            settle(&reading, next: reading.previous?.generation == generation - 1 ? end : nil)
        }
        return length
    }

    /// Bytes between frames that do not read as one.
    private mutating func noteUnreadable(_ scan: LogSegment.Scan, generation: UInt64, name: String) {
        for range in scan.unreadable {
            damage.append(
                Damage(
                    position: LogPosition(generation: generation, offset: range.lowerBound),
                    description: "\(range.count) bytes of the log file \(name) at byte \(range.lowerBound) "
                        + "do not read"))
        }
    }

    /// A torn last frame: the tail a new write goes after (the newest segment, whole), damage
    /// (the newest, cut short), or left for the next segment to settle (returned).
    private mutating func takeTornTail(
        _ scan: inout LogSegment.Scan, _ bytes: UnsafeRawBufferPointer, generation: UInt64, name: String,
        isNewest: Bool, length: Int
    ) -> Range<Int>? {
        if let torn = scan.tail {
            if isNewest, bytes.count == length {
                tail = (generation, torn, Self.keys(in: bytes, at: torn.lowerBound))
            } else if isNewest {
                damage.append(
                    Damage(
                        position: LogPosition(generation: generation, offset: torn.lowerBound),
                        description: "\(torn.count) bytes of the log file \(name) at byte \(torn.lowerBound) "
                            + "do not read, in a file cut short"))
                scan.validEnd = torn.upperBound
            } else {
                return torn
            }
        }
        return nil
    }

    /// The chunks of each frame, by key, and where each key's last frame in the segment ends.
    private mutating func indexFrames(
        _ scan: LogSegment.Scan, generation: UInt64, name: String, length: Int
    ) -> Segment {
        var segment = Segment(generation: generation, length: length, validEnd: scan.validEnd, lastFrameEnds: [:])
        for frame in scan.frames {
            let end = LogPosition(generation: generation, offset: frame.end)
            for (entry, chunk, verified) in frame.entries {
                chunks[entry.key, default: []].append(
                    Chunk(
                        generation: generation, bytes: chunk, firstSequence: entry.firstSequence,
                        recordCount: entry.recordCount, frameEnd: end, verified: verified, crc: entry.chunkCRC))
                segment.lastFrameEnds[entry.key] = end
            }
            if !frame.isPristine, frame.entries.allSatisfy(\.verified) {
                notices.append(
                    "the log file \(name) has a frame at byte \(frame.offset) with a damaged copy of its directory "
                        + "or length; its records read")
            }
        }
        return segment
    }

    /// Whose records the frame at `offset` held, when its directory survived.
    private static func keys(in bytes: UnsafeRawBufferPointer, at offset: Int) -> [UInt64] {
        guard case .frame(let frame) = LogFrame.decode(bytes, at: offset, end: bytes.count) else { return [] }
        return frame.entries.map(\.entry.key)
    }
}
