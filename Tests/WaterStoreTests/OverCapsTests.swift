import Testing
import WaterCore
import WaterZoneInfo

@testable import WaterStore

/// An archive over the member caps on disk (what a server before them wrote) loads, is checked,
/// backed up, restored and repaired whole: nothing on disk is ever dropped for a cap.
@Suite("Archives over the caps")
struct OverCapsTests {
    static let overDay = "1 day holds more than 100 drinks (at most 100 drinks a day), the most 150 on 2026-11-30"

    /// A data directory whose member 1 has 150 drinks on 2026-11-30, written past the checks
    /// (as a server before the caps wrote them).
    static func overCapDirectory() throws -> String {
        let path = temporaryDirectory() + "/data"
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        let member = try store.createMember(1)
        try member.commitAndWait { _ in
            (0..<150).map {
                .water(
                    .logged(
                        WaterEntry(
                            id: id($0), amountMillilitres: 100, unixMilliseconds: workloadStart + Int64($0) * 60_000)
                    ))
            }
        }
        return path
    }

    static func drinks(_ path: String) throws -> Int {
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        return try store.member(1)!.read { $0.water.entries.count }
    }

    @Test("it loads whole, check notes it and calls it healthy, and only a write that adds to the full day is refused")
    func loadsAndChecks() throws {
        let path = try Self.overCapDirectory()
        defer { removeTree(String(path.dropLast(5))) }
        let report = try #require(
            try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system).first { $0.archive == "users/1" })
        #expect(report.problem == nil && report.overCaps == [Self.overDay])

        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        let member = try #require(store.member(1))
        #expect(try member.read { $0.water.entries.count } == 150)
        let refused = #expect(throws: DomainError.self) {
            try member.commitAndWait { archive in
                let decision = try archive.water.validateLog(
                    id: id(1000), amountMillilitres: 250, unixMilliseconds: workloadStart + 3_600_000,
                    now: workloadStart + 86_400_000)
                guard case .log(let mutation) = decision else { return [] }
                return [.water(mutation)]
            }
        }
        #expect(refused?.message == "at most 100 drinks a day: 2026-11-30 has 150 already; remove one first")
        try member.commitAndWait { archive in [.water(try archive.water.validateDelete(id: id(0)))] }
        #expect(try member.read { $0.water.entries.count } == 149)
    }

    @Test("a backup and a restore of it keep every drink over the cap")
    func restore() throws {
        let path = try Self.overCapDirectory()
        let root = String(path.dropLast(5))
        defer { removeTree(root) }
        try Backup.copy(from: path, to: root + "/backup")
        try Backup.restore(from: root + "/backup", to: root + "/restored", force: false, now: 1_800_000_000_000)
        #expect(try Self.drinks(root + "/restored") == 150)
        #expect(
            try DataDirectoryCheck.run(root + "/restored", timeZones: ZoneInfo.system).first {
                $0.archive == "users/1"
            }?.overCaps == [Self.overDay]
        )
    }

    @Test("a repair keeps every drink over the cap and says so")
    func repair() throws {
        let path = try Self.overCapDirectory()
        defer { removeTree(String(path.dropLast(5))) }
        let outcome = try ArchiveRepair.repair("users/1", in: path, now: 1_800_000_000, timeZones: ZoneInfo.system)
        #expect(
            outcome.kept.contains(
                "what is over a cap, whole (only writes that would add to it are refused): \(Self.overDay)"),
            "\(outcome.kept)")
        #expect(outcome.dropped.isEmpty, "\(outcome.dropped)")
        #expect(try Self.drinks(path) == 150)
    }
}
