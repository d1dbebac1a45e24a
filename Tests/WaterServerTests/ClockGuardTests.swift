import Dispatch
import Foundation
import Testing
import WaterCore
import WaterLog
import WaterProtocol
import WaterSync
import WaterTestSupport

@testable import WaterServer

/// A clock the household can trust (issue 20 item 5), with the clock handed in.
@Suite("Clock guard")
struct ClockGuardTests {
    /// 2026-12-01 07:40 UTC.
    static let morning: Int64 = 1_796_110_800_000
    static let minute: Int64 = 60_000

    /// A guard over a fresh directory whose clock the test moves.
    final class Fixture: Sendable {
        let directory: String
        let clock = Locked<Int64>(0)

        init() throws {
            directory = NSTemporaryDirectory() + "clock-\(UUID())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        func guardian(buildTime: Int64? = nil) -> ClockGuard {
            let clock = self.clock
            return ClockGuard(
                now: { clock.withLock { $0 } }, buildTime: buildTime, dataDirectory: directory, zone: .utc,
                logger: .silent)
        }

        func set(_ time: Int64) { clock.withLock { $0 = time } }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test("the compiler's __DATE__ and __TIME__ read as a day before, for the building machine's unknown zone")
    func buildTimeParses() {
        #expect(BuildTime.unixMilliseconds(date: "Dec  1 2026", time: "07:40:00") == Self.morning - 86_400_000)
        #expect(BuildTime.unixMilliseconds(date: "Jan 31 2027", time: "23:59:59") != nil)
        for (date, time) in [
            ("Dec 32 2026", "07:40:00"), ("Foo  1 2026", "07:40:00"), ("Dec  1 2026", "24:00:00"), ("", ""),
        ] {
            #expect(BuildTime.unixMilliseconds(date: date, time: time) == nil, "\(date) \(time)")
        }
    }

    @Test("a clock behind the build time refuses writes, naming both times; it resumes once the clock is set")
    func behindTheBuild() throws {
        let fixture = try Fixture()
        let guardian = fixture.guardian(buildTime: Self.morning)
        fixture.set(120_000)  // a Pi that booted at 1970-01-01 00:02
        let refusal = #expect(throws: WaterError.self) { try guardian.admitWrite() }
        #expect(refusal?.code == .unavailable)
        #expect(
            refusal?.message
                == "the server's clock is behind (it says 1970-01-01 00:02, this release was built 2026-12-01 07:40); "
                + "waiting for the time to be set")
        #expect(guardian.reading().isBehind)
        // The network sets the time: the next write goes through, with nothing restarted.
        fixture.set(Self.morning + 5 * Self.minute)
        try guardian.admitWrite()
        #expect(!guardian.reading().isBehind)
    }

    @Test("the newest write is kept in the data directory: a restart with the clock set back refuses writes")
    func behindTheNewestRecord() throws {
        let fixture = try Fixture()
        fixture.set(Self.morning)
        let first = fixture.guardian()
        try first.admitWrite()
        first.flush()
        #expect(
            try String(contentsOfFile: "\(fixture.directory)/\(ClockGuard.fileName)", encoding: .utf8)
                == "\(Self.morning)\n")

        // A power cut; the Pi boots at the time it saved an hour before.
        fixture.set(Self.morning - 60 * Self.minute)
        let second = fixture.guardian()
        let refusal = #expect(throws: WaterError.self) { try second.admitWrite() }
        #expect(refusal?.message.contains("(it says 2026-12-01 06:40, the newest record is 2026-12-01 07:40)") == true)
        // Behind by no more than a client's allowed skew is not behind.
        fixture.set(Self.morning - WaterDiary.allowedClockSkewMilliseconds)
        try second.admitWrite()
    }

    @Test("the file follows the newest write at most once a minute, and a clean stop writes the rest")
    func fileFollows() throws {
        let fixture = try Fixture()
        let path = "\(fixture.directory)/\(ClockGuard.fileName)"
        func stored() -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        let guardian = fixture.guardian()
        fixture.set(Self.morning)
        try guardian.admitWrite()
        // The first write is kept at once (off the caller): wait for it.
        #expect(waitUntil(seconds: 30) { stored() == "\(Self.morning)\n" })
        fixture.set(Self.morning + 30_000)
        try guardian.admitWrite()
        guardian.flush()
        #expect(stored() == "\(Self.morning + 30_000)\n")
        fixture.set(Self.morning + 2 * Self.minute)
        try guardian.admitWrite()
        #expect(waitUntil(seconds: 30) { stored() == "\(Self.morning + 2 * Self.minute)\n" })
    }

    @Test(
        "many writers at once (as connections and the import queue are): the newest write is the latest, kept across a restart"
    )
    func manyWriters() throws {
        let fixture = try Fixture()
        let guardian = fixture.guardian()
        let clock = fixture.clock
        // Every writer moves the clock on and writes; which of them runs last is the race. The
        // steps (100 ms, 20 s in all) stay within the allowed skew: a writer that read the clock
        // and then waited for the others is never "behind" by more than a real one could be.
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            clock.withLock { $0 = max($0, Self.morning + Int64(index) * 100) }
            #expect(throws: Never.self) { try guardian.admitWrite() }
        }
        guardian.flush()
        let latest = clock.withLock { $0 }
        #expect(
            try String(contentsOfFile: "\(fixture.directory)/\(ClockGuard.fileName)", encoding: .utf8)
                == "\(latest)\n")
        // A restart with the clock set back three minutes from the latest refuses; one minute does not.
        fixture.set(latest - 3 * Self.minute)
        #expect(throws: WaterError.self) { try fixture.guardian().admitWrite() }
        fixture.set(latest - Self.minute)
        try fixture.guardian().admitWrite()
    }

    @Test("with neither a newest write nor a build time there is nothing to be behind; the later of the two counts")
    func reference() {
        #expect(ClockGuard.reference(newestWrite: 0, buildTime: nil) == nil)
        #expect(ClockGuard.reference(newestWrite: 5, buildTime: 9)?.source == .buildTime)
        #expect(ClockGuard.reference(newestWrite: 9, buildTime: 5)?.source == .newestRecord)
        #expect(ClockGuard.reference(newestWrite: 9, buildTime: nil)?.unixMilliseconds == 9)
    }

    @Test("an unreadable file counts as no newest write (only the build time then)")
    func unreadableFile() throws {
        let fixture = try Fixture()
        try "garbage".write(toFile: "\(fixture.directory)/\(ClockGuard.fileName)", atomically: true, encoding: .utf8)
        fixture.set(1000)
        try fixture.guardian().admitWrite()
    }
}
