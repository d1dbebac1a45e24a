import Glibc
import Testing
import WaterCore
import WaterStore
import WaterZoneInfo

@Suite("Data directory on the real file system")
struct DataDirectoryTests {
    @Test("keeps every write across a restart, with compactions in between")
    func restart() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(Self.parent(path)) }
        var options = StoreOptions(timeZones: ZoneInfo.system)
        options.compactionThreshold = 2048
        var expected = Expected()
        let store = try FileArchiveStore(path: path, options: options, owner: "test")
        for step in Step.script(count: 300, seed: 11) { #expect(run(step, on: store, expecting: &expected)) }
        store.close()
        let reopened = try FileArchiveStore(path: path, options: options, owner: "test")
        #expect(try Expected(reopened) == expected)
        #expect(reopened.memberIDs.allSatisfy { reopened.member($0)!.fileStatus.snapshotBytes > 0 })
        reopened.close()
    }

    @Test("creates the directory 0700 and every file 0600")
    func permissions() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(Self.parent(path)) }
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        var expected = Expected()
        run(.log(member: 4, n: 1, amount: 250), on: store, expecting: &expected)
        run(.todo(n: 2), on: store, expecting: &expected)
        store.close()
        for directory in [path, "\(path)/users", "\(path)/users/4", "\(path)/household", "\(path)/log"] {
            #expect(Self.mode(directory) == 0o700, "\(directory)")
        }
        for file in [
            "format", "lock", "log/0000000000000001", "users/4/snapshot", "household/snapshot", "accounts/snapshot",
        ] {
            #expect(Self.mode("\(path)/\(file)") == 0o600, "\(file)")
        }
    }

    @Test("is locked while in use: a second opener is refused with the holder's name")
    func lock() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(Self.parent(path)) }
        let first = try FileArchiveStore(
            path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "pid 4242 water-server serve")
        #expect {
            try FileArchiveStore(
                path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "pid 99 water-server check")
        } throws: { error in
            let error = error as? ArchiveError
            return error?.code == .locked && error?.message.contains("pid 4242 water-server serve") == true
        }
        first.close()
        try FileArchiveStore(
            path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "pid 99 water-server check"
        ).close()
    }

    @Test("refuses a data directory of an unknown format")
    func unknownFormat() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(Self.parent(path)) }
        try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test").close()
        let file = fopen("\(path)/format", "w")
        fputs("water-data 7\n", file)
        fclose(file)
        #expect {
            try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        } throws: {
            ($0 as? ArchiveError)?.code == .unsupportedVersion
        }
    }

    @Test("refuses a log segment built to exhaust memory instead of reading it, and never writes over it")
    func oversizedSegment() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(Self.parent(path)) }
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        var expected = Expected()
        run(.log(member: 5, n: 1, amount: 250), on: store, expecting: &expected)
        store.close()
        // Grow the segment past the cap (sparse: no disk is used).
        #expect(truncate("\(path)/log/0000000000000001", off_t(300 << 20)) == 0)
        let reopened = try FileArchiveStore(
            path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        #expect(reopened.protectedArchives.first?.reason.message.contains("larger than") == true)
        // Writes that can go on go to a segment of their own.
        #expect((reopened.logPosition.generation, reopened.logPosition.offset) == (2, 0))
        var more = Expected()
        #expect(run(.log(member: 6, n: 2, amount: 250), on: reopened, expecting: &more))
        #expect(reopened.logPosition.generation == 2)
        reopened.close()
        var info = stat()
        stat("\(path)/log/0000000000000001", &info)
        #expect(info.st_size == 300 << 20)
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    static func parent(_ path: String) -> String {
        String(path[..<path.lastIndex(of: "/")!])
    }
}
