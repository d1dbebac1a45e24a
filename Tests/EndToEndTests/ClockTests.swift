import Foundation
import Testing
import WaterCore
import WaterTestSupport

/// A clock the household can trust (issue 20 item 5), through the real binaries: the server
/// stated a time with --clock, as after a power cut a Raspberry Pi boots with an old one.
@Suite("A clock the household can trust", .serialized)
struct ClockTests {
    /// The start of the minute an hour ago, and how `ClockGuard` writes it (in UTC, the zone the
    /// test servers keep).
    static func anHourAgo() -> (unixMs: Int64, text: String) {
        let time = (UnixTime.nowMilliseconds() - 3_600_000) / 60_000 * 60_000
        let zone = MemberTimeZone.utc
        return (time, "\(zone.date(atUnixMilliseconds: time)) \(zone.clock(atUnixMilliseconds: time))")
    }

    @Test(
        "a server whose clock is behind its newest record serves reads, refuses writes with both times, says so in its log and status, and takes the saved write once the clock is right"
    )
    func behindTheNewestRecord() throws {
        let (morning, morningText) = Self.anHourAgo()
        var server = try ServerProcess.fresh(["--clock", "\(morning)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)

        // The power cut: the Pi comes back a day early.
        let dayEarly = morning - 86_400_000
        // On the same port: the terminal's login is for that address.
        server = try server.restarted(["--clock", "\(dayEarly)", "--listen", "\(server.address)"])
        defer { #expect(server.stop() == 0) }
        #expect(server.waitForLog("clock behind: writes refused until the time is set"))
        #expect(waitUntil { server.statusFile["clock_behind"] == "yes" })
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        let dayEarlyText = "\(MemberTimeZone.utc.date(atUnixMilliseconds: dayEarly)) \(morningText.suffix(5))"
        #expect(
            status.output.contains(
                "clock: behind (it says \(dayEarlyText), the newest record is \(morningText)); writes are refused "
                    + "until the time is set"), "\(status.output)")

        let read = try mum.run(["history", "--days", "3"])
        #expect(read.status == 0, "reads are served: \(read.error)")
        // The write is refused, so it waits on this computer, which says why.
        let logged = try mum.run(["log", "300"])
        #expect(logged.status == 0 && logged.output.hasPrefix("saved on this computer: log 300 ml"), "\(logged)")
        #expect(
            logged.output.contains(
                "; the server at \(server.address) did not take it: the server's clock is behind (it says "
                    + "\(dayEarlyText), the newest record is \(morningText)); waiting for the time to be set; it will be "
                    + "sent when the server at \(server.address) takes it"), "\(logged.output)")
        #expect(
            server.waitForLog(
                "the server's clock is behind (it says \(dayEarlyText), the newest record is \(morningText)); "
                    + "waiting for the time to be set"), "\(server.logSoFar)")

        // The time is set (here: the real clock, an hour after the newest record).
        server = try server.restarted(["--listen", "\(server.address)"])
        #expect(waitUntil { server.statusFile["clock_behind"] == "no" })
        let synced = try mum.run(["sync"])
        #expect(
            synced.status == 0 && synced.output.hasPrefix("sent 1 saved on this computer:\n  log 300 ml"), "\(synced)")
        // The drink is dated when it was drunk (this computer's clock), not when the clock was set.
        let history = try mum.run(["history", "--entries", "--days", "2"])
        #expect(history.output.contains("+300 ml") && history.output.contains("+250 ml"), "\(history.output)")
        #expect(try run("water-server", ["status", "--data", server.dataDirectory]).output.contains("clock: ok"))
    }

    @Test("the client warns once a day on stderr when its clock and the server's differ, naming both")
    func clientWarnsOnce() throws {
        let (morning, _) = Self.anHourAgo()
        let server = try ServerProcess.fresh(["--clock", "\(morning)"])
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let login = try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 0)
        #expect(login.error.contains("warning: this computer's clock says "), "\(login.error)")
        #expect(login.error.contains("and the server at \(server.address)'s says "), "\(login.error)")
        for command in [["today"], ["log", "200"], ["week"]] {
            let ran = try mum.run(command)
            #expect(ran.status == 0 && !ran.error.contains("warning: this computer's clock"), "\(command): \(ran)")
        }
    }

    @Test("--clock states the time outright: a time long before this release was built still takes writes")
    func statedClock() throws {
        // 2001-01-01 12:00 UTC: years before any build of this code.
        let server = try ServerProcess.fresh(["--clock", "978350400000"])
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let logged = try mum.run(["log", "250"])
        #expect(logged.status == 0 && logged.output.hasPrefix("logged 250 ml"), "\(logged)")
        #expect(waitUntil { server.statusFile["clock_behind"] == "no" })
    }
}
