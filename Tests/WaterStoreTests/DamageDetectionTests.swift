import Testing
import WaterCore
import WaterLog
import WaterSync
import WaterSystem
import WaterTestSupport
import WaterZoneInfo

@testable import WaterStore

/// What the loader must notice in the shared log: every way records can go missing, come up
/// short or be damaged that is not the torn last write; and that damage protects only the
/// archives it can have touched.
@Suite("Damage detection")
struct DamageDetectionTests {
    static let length = 4096
    static let ann = ArchiveKey.member(1)
    static let ben = ArchiveKey.member(2)
    static let household = ArchiveKey.household

    static func record(_ key: UInt64, _ n: Int) -> [UInt8] {
        switch key {
        case household:
            TodoList.encodeRecord(
                .added(TodoItem(id: id(n), text: "task \(n)", addedBy: 1, addedAtUnixMilliseconds: workloadStart)),
                sequence: UInt64(n))
        default:
            MemberArchive.encodeRecord(
                .water(.logged(WaterEntry(id: id(n), amountMillilitres: Int32(n), unixMilliseconds: workloadStart))),
                sequence: UInt64(n))
        }
    }

    /// One frame: for each archive, the numbers of its records (its sequence numbers too).
    static func frame(_ chunks: [(key: UInt64, records: [Int])]) -> [UInt8] {
        var records: [UInt8] = []
        var ranges: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
        for chunk in chunks {
            let start = records.count
            for n in chunk.records { LogFrame.appendRecord(record(chunk.key, n), to: &records) }
            ranges.append((chunk.key, UInt64(chunk.records.first!), chunk.records.count, start..<records.count))
        }
        var frame: [UInt8] = []
        records.withUnsafeBytes { LogFrame.encode(chunks: ranges, records: $0, into: &frame) }
        return frame
    }

    /// Segment `generation` holding `frames`, its header saying the one before ends at
    /// `previousEnd`; also returns where each frame starts.
    static func segment(_ generation: UInt64, previousEnd: Int, _ frames: [[UInt8]]) -> (bytes: [UInt8], starts: [Int])
    {
        var bytes = [UInt8](repeating: 0, count: length)
        let header = LogSegment.header(generation: generation, length: length, previousEnd: previousEnd)
        bytes.replaceSubrange(0..<header.count, with: header)
        var offset = header.count
        var starts: [Int] = []
        for frame in frames {
            starts.append(offset)
            bytes.replaceSubrange(offset..<(offset + frame.count), with: frame)
            offset += frame.count
        }
        return (bytes, starts)
    }

    static func path(_ generation: UInt64) -> String { "/data/log/\(LogSegment.name(generation: generation))" }

    /// A directory with members 1 (Ann) and 2 (Ben) and a log of two segments:
    ///
    ///     segment 1: [Ann 1-2, household 1] [Ben 1] [household 2-3, Ann 3]
    ///     segment 2: [Ben 2, Ann 4] [household 4]
    static func twoSegments(_ change: (inout [[UInt8]], inout [[UInt8]]) -> Void = { _, _ in }) throws -> SimulatedDisk
    {
        let disk = SimulatedDisk()
        let store = try openStore(disk.fileSystem())
        _ = try store.createMember(1)
        _ = try store.createMember(2)
        store.close()
        var first = [
            frame([(ann, [1, 2]), (household, [1])]), frame([(ben, [1])]), frame([(household, [2, 3]), (ann, [3])]),
        ]
        var second = [frame([(ben, [2]), (ann, [4])]), frame([(household, [4])])]
        change(&first, &second)
        let one = segment(1, previousEnd: 0, first)
        let end = one.starts.last! + first.last!.count
        let fileSystem = disk.fileSystem()
        try fileSystem.replaceFile(path(1), with: one.bytes, mode: 0o600)
        try fileSystem.replaceFile(path(2), with: segment(2, previousEnd: end, second).bytes, mode: 0o600)
        return disk
    }

    /// What each archive holds (record numbers), or why it is protected.
    static func open(_ disk: SimulatedDisk, logger: Logger = .silent) throws -> [UInt64: Result<[Int], ArchiveError>] {
        var options = StoreOptions(timeZones: ZoneInfo.system)
        options.logSegmentLength = length
        let store = try FileArchiveStore(
            path: "/data", fileSystem: disk.crash(), options: options, logger: logger, owner: "test")
        defer { store.close() }
        func outcome<T>(_ protection: ArchiveError?, _ read: () throws -> [T], _ number: (T) -> Int) -> Result<
            [Int], ArchiveError
        > {
            if let protection { return .failure(protection) }
            return Result { try read().map(number) }.mapError { $0 as! ArchiveError }
        }
        return [
            household: outcome(
                store.household.protection, { try store.household.read { $0.items.map(\.text) } },
                { Int($0.dropFirst(5))! }),
            ann: outcome(
                store.member(1)!.protection, { try store.member(1)!.read { $0.water.entries } },
                { Int($0.amountMillilitres) }),
            ben: outcome(
                store.member(2)!.protection, { try store.member(2)!.read { $0.water.entries } },
                { Int($0.amountMillilitres) }),
        ]
    }

    static func intact() -> [UInt64: [Int]] {
        [household: [1, 2, 3, 4], ann: [1, 2, 3, 4], ben: [1, 2]]
    }

    /// Which archives are protected, and that the others hold exactly what they should.
    static func protected(_ disk: SimulatedDisk, holding: [UInt64: [Int]] = intact()) throws -> [UInt64: String] {
        var reasons: [UInt64: String] = [:]
        for (key, outcome) in try open(disk) {
            switch outcome {
            case .success(let records): #expect(records.sorted() == holding[key], "\(ArchiveKey.folder(key))")
            case .failure(let error): reasons[key] = error.message
            }
        }
        return reasons
    }

    @Test("a log of two segments loads whole, in order, for every archive")
    func intactLog() throws {
        #expect(try Self.protected(Self.twoSegments()).isEmpty)
    }

    @Test("a chunk damaged in the middle of the log protects its archive only")
    func damagedChunk() throws {
        let disk = try Self.twoSegments { first, _ in first[1][first[1].count / 2] ^= 0x10 }
        let reasons = try Self.protected(disk)
        #expect(reasons.keys.sorted() == [Self.ben])
        #expect(reasons[Self.ben]?.contains("its records 1-1 in log 0000000000000001") == true, "\(reasons)")
    }

    @Test("a frame whose directory is lost with both copies: archives whose later records follow on carry on")
    func unattributable() throws {
        // The second frame of segment 1 (Ben's record 1) is overwritten whole: nobody can tell
        // whose it was. Ann and the household have records after it that go on exactly where
        // they stopped before; Ben's next record, 2, does not follow anything.
        let disk = try Self.twoSegments { first, _ in first[1] = [UInt8](repeating: 0xEE, count: first[1].count) }
        let reasons = try Self.protected(disk)
        #expect(reasons.keys.sorted() == [Self.ben])
        #expect(reasons[Self.ben]?.contains("skips from its record 0 to 2") == true, "\(reasons)")
        // And when it was somebody's last frame, that somebody cannot be told safe.
        let last = try Self.twoSegments { _, second in
            second[1] = [UInt8](repeating: 0xEE, count: second[1].count) + Self.frame([(Self.ann, [5])])
        }
        let lastReasons = try Self.protected(
            last, holding: [Self.household: [1, 2, 3], Self.ann: [1, 2, 3, 4, 5], Self.ben: [1, 2]])
        #expect(lastReasons.keys.sorted() == [Self.household, Self.ben].sorted(), "\(lastReasons)")
        #expect(lastReasons[Self.household]?.contains("may have held its latest writes") == true)
    }

    @Test("a segment deleted from the middle is a gap for those with records there, and nobody else")
    func missingSegment() throws {
        let disk = try Self.twoSegments()
        // A third segment, then segment 2 (Ben 2, Ann 4, household 4) goes missing.
        try disk.fileSystem().replaceFile(
            Self.path(3), with: Self.segment(3, previousEnd: 100, [Self.frame([(Self.ann, [5])])]).bytes, mode: 0o600)
        disk.remove(Self.path(2))
        let reasons = try Self.protected(disk)
        #expect(reasons[Self.ann]?.contains("skips from its record 3 to 5") == true, "\(reasons)")
        #expect(reasons[Self.household]?.contains("0000000000000002 is missing") == true, "\(reasons)")
        #expect(reasons[Self.ben]?.contains("0000000000000002 is missing") == true, "\(reasons)")
    }

    @Test("an older segment cut short, or ending before where the next says, is damage")
    func segmentCutShort() throws {
        // Segment 1's last frame zeroed (lost from its end): segment 2 says it ended later.
        let disk = try Self.twoSegments { first, _ in first[2] = [UInt8](repeating: 0, count: first[2].count) }
        let reasons = try Self.protected(disk)
        // Ann's 4 and the household's 4 follow records that are gone; Ben has nothing there.
        #expect(reasons.keys.sorted() == [Self.household, Self.ann].sorted(), "\(reasons)")
        #expect(reasons[Self.ann]?.contains("skips from its record 2 to 4") == true)
        // The newest segment cut short (its file shorter than it was made): what follows the
        // cut cannot be told from records lost.
        let short = try Self.twoSegments()
        let newest = try #require(short.contents(under: Self.path(2))[Self.path(2)])
        short.overwrite(Self.path(2), with: Array(newest.prefix(2000)))
        let shortReasons = try Self.protected(short)
        #expect(shortReasons.count == 3, "\(shortReasons)")
        #expect(shortReasons.values.allSatisfy { $0.contains("bytes long but was made 4096") }, "\(shortReasons)")
    }

    @Test("records repeated or skipped inside an archive's chunks are refused with the sequence numbers")
    func outOfOrder() throws {
        let skipped = try Self.twoSegments { _, second in second[1] = Self.frame([(Self.household, [5])]) }
        #expect(try Self.protected(skipped)[Self.household]?.contains("skips from its record 3 to 5") == true)
        let repeated = try Self.twoSegments { _, second in second[1] = Self.frame([(Self.household, [3])]) }
        #expect(try Self.protected(repeated)[Self.household]?.contains("repeats its record 3 after record 3") == true)
    }

    @Test("a damaged segment header or directory copy is noted, and costs no archive anything")
    func harmlessDamage() throws {
        let disk = try Self.twoSegments()
        var second = try #require(disk.contents(under: Self.path(2))[Self.path(2)])
        second[9] ^= 0x40
        disk.overwrite(Self.path(2), with: second)
        var first = try #require(disk.contents(under: Self.path(1))[Self.path(1)])
        let frameEnd =
            Self.segment(1, previousEnd: 0, [Self.frame([(Self.ann, [1, 2]), (Self.household, [1])])]).starts[0]
            + Self.frame([(Self.ann, [1, 2]), (Self.household, [1])]).count
        first[frameEnd - 6] ^= 0x01
        disk.overwrite(Self.path(1), with: first)
        let index = try LogIndex.read("/data/log", fileSystem: disk.fileSystem())
        #expect(index.notices.contains { $0.contains("damaged header") }, "\(index.notices)")
        #expect(index.notices.contains { $0.contains("damaged copy of its directory") }, "\(index.notices)")
        #expect(try Self.protected(disk).isEmpty)
    }

    @Test("a torn write at the end of the log is cut, and the log says how much and whose")
    func tornTail() throws {
        let disk = try Self.twoSegments()
        var newest = try #require(disk.contents(under: Self.path(2))[Self.path(2)])
        let last = Self.segment(2, previousEnd: 0, [Self.frame([(Self.ben, [2]), (Self.ann, [4])])])
        let start = last.starts[0] + Self.frame([(Self.ben, [2]), (Self.ann, [4])]).count
        let frameLength = Self.frame([(Self.household, [4])]).count
        // The last write reached the disk as far as its chunk: the rest is still the zeros the
        // segment was made of.
        let chunkStart = start + LogFrame.headerLength + LogFrame.entryLength + 4
        for index in chunkStart..<(start + frameLength) { newest[index] = 0 }
        disk.overwrite(Self.path(2), with: newest)
        let lines = Locked<[String]>([])
        let logger = Logger(minimumLevel: .warning) { line in lines.withLock { $0.append(line) } }
        let outcome = try Self.open(disk, logger: logger)
        #expect(try outcome[Self.household]?.get() == [1, 2, 3])
        let cut = try #require(lines.withLock { $0 }.first { $0.contains("log tail cut") })
        #expect(cut.contains("bytes=\(frameLength)") && cut.contains("archives=household"), "\(cut)")
        // Cut means zeroed: the next start finds no tail at all.
        #expect(try LogIndex.read("/data/log", fileSystem: disk.fileSystem()).tail == nil)
        #expect(try Self.open(disk)[Self.household]?.get() == [1, 2, 3])
    }

    @Test(
        "issue 31: a byte flipped in the newest frame, written whole, is damage: its archive is protected, not cut back"
    )
    func damagedNewestFrame() throws {
        let disk = try Self.twoSegments()
        var newest = try #require(disk.contents(under: Self.path(2))[Self.path(2)])
        let last = Self.segment(2, previousEnd: 0, [Self.frame([(Self.ben, [2]), (Self.ann, [4])])])
        let start = last.starts[0] + Self.frame([(Self.ben, [2]), (Self.ann, [4])]).count
        // The household's record 4, acknowledged after its sync, then one bit of it flipped.
        let chunkStart = start + LogFrame.headerLength + LogFrame.entryLength + 4
        newest[chunkStart + 5] ^= 0x08
        disk.overwrite(Self.path(2), with: newest)
        let index = try LogIndex.read("/data/log", fileSystem: disk.fileSystem())
        #expect(index.tail == nil, "not taken for a torn write")
        let reasons = try Self.protected(disk)
        #expect(reasons.keys.sorted() == [Self.household], "\(reasons)")
        #expect(reasons[Self.household]?.contains("its records 4-4 in log 0000000000000002") == true, "\(reasons)")
        // Nothing was cut: with the bit put back, every record reads again.
        newest[chunkStart + 5] ^= 0x08
        disk.overwrite(Self.path(2), with: newest)
        #expect(try Self.protected(disk).isEmpty)
    }

    @Test("an empty member folder: a listed member's snapshot gone missing, or an add a crash cut short, reused")
    func emptyMemberFolders() throws {
        let disk = SimulatedDisk()
        let setup = try openStore(disk.fileSystem())
        // The accounts list member 1, whose folder then loses its snapshot.
        try setup.accounts.commitAndWait { book in
            [
                try book.validateAdd(
                    username: "ann", displayName: "Ann", role: .member, timeZone: .utc,
                    passwordHash: "not a real hash", now: workloadStart)
            ]
        }
        setup.close()
        let fileSystem = disk.fileSystem()
        for id in [1, 7] {
            try fileSystem.createDirectory("/data/users/\(id)", mode: 0o700)
        }
        try fileSystem.syncDirectory("/data/users")
        let store = try openStore(disk.crash())
        #expect(store.member(1)?.protection?.message.contains("has no snapshot") == true)
        // Member 7 is in no account: an add cut short. It reads as empty and takes writes.
        #expect(store.member(7)?.protection == nil)
        var expected = Expected()
        #expect(run(.log(member: 7, n: 1, amount: 250), on: store, expecting: &expected))
        store.close()
        #expect(try openStore(disk.crash()).member(7)!.read { $0 } == expected.members[7])
    }
}
