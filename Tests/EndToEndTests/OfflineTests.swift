import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// Away from home (issue 12): the outbox and `sync`, through the real binaries, with the server
/// stopped and started by process id. A write saved here is sent once, whatever stops it.
@Suite("Offline: the outbox, end to end", .serialized)
struct OfflineTests {
    /// A member (`mum` unless named) logged in on a running server, whose state directory
    /// (outbox, cache) is their own.
    static func member(
        _ server: ServerProcess, _ name: String = "mum", password: String = adminPassword, login options: [String] = []
    ) throws -> CommandLineUser {
        let setup = server.cli(name)
        // Beside the person's config directory: each person's state (outbox, cache) is their own.
        let state = setup.environment["XDG_CONFIG_HOME"]! + "-state"
        let mum = CommandLineUser(environment: setup.environment.merging(["XDG_STATE_HOME": state]) { $1 })
        #expect(try mum.run(["login", name, "--password-stdin"] + options, input: password + "\n").status == 0)
        return mum
    }

    static func outboxDirectory(_ person: CommandLineUser) -> String {
        person.environment["XDG_STATE_HOME"]! + "/water/outbox"
    }

    static func queuedFiles(_ person: CommandLineUser) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: outboxDirectory(person))) ?? []).filter {
            $0.hasSuffix(".write")
        }
    }

    @Test("server stopped: log is saved (exit 0); the next command sends it once, with the time it was typed")
    func queuedThenSent() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(server.stop() == 0)

        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let saved = try mum.run(["log", "250"])
        #expect(saved.status == 0, "\(saved.error)")
        #expect(saved.output.hasPrefix("saved on this computer: log 250 ml at "), "\(saved.output)")
        #expect(saved.output.split(separator: "\n").count == 1)
        let json = try mum.run(["--json", "log", "100"])
        let typed = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(json.status == 0 && json.output.contains("\"queued\":true"), "\(json.output)")
        #expect(Self.queuedFiles(mum).count == 2)
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: Self.outboxDirectory(mum) + "/" + Self.queuedFiles(mum)[0])[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Seen while away: today merges them, marked.
        let away = try mum.run(["today"])
        #expect(
            away.status == 0 && away.output.contains("not sent yet:\n  log 250 ml at "), "\(away.output) \(away.error)")
        // The time sent must be the time typed: everything from here on happens a second later.
        #expect(waitUntil { Int64(Date().timeIntervalSince1970 * 1000) > typed + 1000 })

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let today = try mum.run(["--json", "today"])
        #expect(today.error.contains("sent 2 writes saved on this computer"), "\(today.error)")
        let reply = try JSONDecoder().decode(WaterV1.GetTodayResponse.self, from: Data(today.output.utf8))
        #expect(reply.entries.map(\.amountMl).sorted() == [100, 250])
        for entry in reply.entries { #expect(entry.atUnixMs >= before && entry.atUnixMs <= typed) }
        #expect(Self.queuedFiles(mum).isEmpty)
        // Never twice: more commands send nothing more.
        #expect(try mum.run(["sync"]).output == "nothing was waiting to be sent\n")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.count == 2)
        #expect(server.stop() == 0)
    }

    @Test("four terminals saving at once; killed while sending; two terminals sending at once: each write lands once")
    func exactlyOnce() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(server.stop() == 0)
        // Four terminals of the same member saving at once.
        let client = productsDirectory.appendingPathComponent("water-client").path
        // 100 drinks today: the most a day holds (WaterLimits.maximumEntriesPerDay).
        for batch in stride(from: 1, through: 100, by: 4) {
            let savers = try (batch..<batch + 4).map { amount in
                try ChildProcess(client, ["log", "\(amount)"], environment: mum.environment)
            }
            for saver in savers { #expect(saver.wait() == 0) }
        }
        #expect(Self.queuedFiles(mum).count == 100)
        // The four kept what prompt shows in turn: it counts every one of them. (With the stamp
        // of a refresh just started, it starts none: a sync in the background would be one more
        // sender, racing the one stopped below.)
        // The stamp goes where prompt looks for it, this server's directory (it was once put in
        // the state directory's top, where prompt stopped looking when each server got its own
        // directory, and a background sync ran again: 61 left, 40 stored).
        let state = URL(fileURLWithPath: mum.environment["XDG_STATE_HOME"]!)
        let stamp =
            ClientFiles.stateDirectory(environment: mum.environment, server: "\(server.address)")
            + "/prompt-refresh"
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: stamp).deletingLastPathComponent().path, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: stamp, contents: nil))
        // A minute old, within the five minutes that hold a refresh back: one started renews it.
        // (Whole seconds: a file's time and a Date need not agree below the microsecond.)
        let stamped = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down))
        try FileManager.default.setAttributes([.modificationDate: stamped], ofItemAtPath: stamp)
        #expect(try mum.run(["prompt", "--format", "{unsent}{mark}"]).output == "100*\n")
        // It started none: a refresh started leaves a stamp of its own, here or anywhere else.
        let stamps = (FileManager.default.enumerator(atPath: state.path)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix("prompt-refresh")
        }
        #expect(stamps.map { state.path + "/" + $0 } == [stamp], "prompt started a sync in the background")
        let renewed = try FileManager.default.attributesOfItem(atPath: stamp)[.modificationDate] as? Date
        #expect(renewed == stamped, "prompt started a sync in the background")

        // The server comes back behind a relay on the address mum logged in to, which passes the
        // handshake's reply and 40 writes' replies, then holds the 41st: sync sends one write at
        // a time and removes each once answered, so it stops there, with the 41st stored on the
        // server and still in the outbox. Killed there (SIGKILL, by pid): the replay case.
        server = try server.restarted()
        let relay = try ReplyHoldingRelay(
            listeningOn: HostPort(host: "127.0.0.1", port: port), to: server.address, passing: 1 + 40)
        defer { relay.stop() }
        let sync = try ChildProcess(client, ["sync"], environment: mum.environment)
        #expect(relay.waitUntilHolding(seconds: 60), "sync never got to its 41st write (\(relay.passed) replies)")
        // Only the sync reached the relay: every reply counted is its own (a second client, a
        // background sync, would take replies of the 41 and stop the sync earlier).
        #expect(relay.connections == 1, "connections other than the sync's reached the relay:\n\(relay.log)")
        kill(sync.pid, SIGKILL)
        #expect(sync.wait() == 128 + SIGKILL)
        #expect(Self.queuedFiles(mum).count == 60, "killed after 40 answered writes:\n\(relay.log)")
        let stored = try server.client("mum", password: adminPassword).call(WaterV1.GetTodayRequest()).entries
        #expect(stored.count == 41, "the server stored the write whose answer was held:\n\(relay.log)")

        // Two terminals at once send the rest, the 41st again among them.
        relay.release()
        let terminals = try (0..<2).map { _ in try ChildProcess(client, ["sync"], environment: mum.environment) }
        for terminal in terminals {
            // What it printed says why, if it failed (a refused write names its reason).
            let output = terminal.readOutput(seconds: 60)
            #expect(terminal.wait() == 0, "\(output) \(terminal.errorText)")
        }
        #expect(Self.queuedFiles(mum).isEmpty)
        let entries = try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries
        #expect(entries.count == 100)
        #expect(Set(entries.map(\.amountMl)) == Set(1...100))
        #expect(server.stop() == 0)
    }

    @Test("a damaged outbox file is kept aside and reported; a refused write is kept, shown, retried or dropped")
    func damagedAndRefused() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        #expect(try mum.run(["habit", "ls"]).status == 0)
        let habitID = try #require(
            try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits.first?.habit?.habitID)
        #expect(server.stop() == 0)
        #expect(try mum.run(["log", "300"]).status == 0)
        #expect(try mum.run(["habit", "check", "Read"]).status == 0)
        #expect(try mum.run(["log", "200"]).status == 0)
        // A file of the outbox that does not read (a disk error, an editor): kept aside.
        let garbage = Self.outboxDirectory(mum) + "/000000000000001-1-0.write"
        try Data("water-outbox 1\nkind log\nrequest zz".utf8).write(to: URL(fileURLWithPath: garbage))

        // Meanwhile the habit goes, from another computer.
        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let other = try server.client("mum", password: adminPassword)
        _ = try other.call(WaterV1.DeleteHabitRequest(habitID: habitID))
        let sync = try mum.run(["sync"])
        #expect(sync.status == 65, "a refused write fails the sync: \(sync.error)")
        #expect(sync.output.contains("sent 2 saved on this computer"), "\(sync.output)")
        #expect(sync.output.contains("kept aside in") && sync.output.contains("/damaged/"), "\(sync.output)")
        #expect(sync.output.contains("refused: check Read on"), "\(sync.output)")
        #expect(
            FileManager.default.fileExists(atPath: Self.outboxDirectory(mum) + "/damaged/000000000000001-1-0.write"))
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.map(\.amountMl).sorted() == [200, 300])

        let listed = try mum.run(["outbox"])
        #expect(listed.output.contains("1. check Read on") && listed.output.contains("refused:"), "\(listed.output)")
        let retried = try mum.run(["outbox", "retry", "1"])
        #expect(retried.status == 65 && retried.error.contains("refused"), "refused again: \(retried.error)")
        #expect(try mum.run(["outbox", "drop", "1"]).status == 0)
        #expect(try mum.run(["outbox"]).output == "nothing waits on this computer\n")
        #expect(server.stop() == 0)
    }

    @Test("an expired session: queued writes wait for login, then go")
    func waitsForLogin() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(server.stop() == 0)
        #expect(try mum.run(["log", "400"]).status == 0)
        // The session ends meanwhile (a password reset on the server ends every session).
        let reset = try run(
            "water-server",
            [
                "passwd", "mum", "--data", server.dataDirectory, "--password-stdin",
                "--password-strength", "minimum",
            ],
            input: "mum-password-2\n")
        #expect(reset.status == 0, "\(reset.error)")
        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let refused = try mum.run(["today"])
        #expect(refused.status == 77 && refused.error.contains("wait for you to log in again"), "\(refused.error)")
        #expect(Self.queuedFiles(mum).count == 1)
        let login = try mum.run(["login", "mum", "--password-stdin"], input: "mum-password-2\n")
        #expect(login.status == 0 && login.error.contains("sent 1 write"), "\(login.error)")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.map(\.amountMl) == [400])
        #expect(server.stop() == 0)
    }

    @Test("killed at any moment while saving a write: the outbox holds whole writes only, each sent once")
    func killedWhileSaving() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(server.stop() == 0)
        let client = productsDirectory.appendingPathComponent("water-client").path
        for attempt in 0..<40 {
            let saving = try ChildProcess(client, ["log", "\(attempt + 1)"], environment: mum.environment)
            usleep(UInt32.random(in: 0...12_000))
            kill(saving.pid, SIGKILL)
            saving.wait()
        }
        let saved = try JSONSerialization.jsonObject(with: Data(try mum.run(["--json", "outbox"]).output.utf8))
        let writes = try #require((saved as? [String: Any])?["writes"] as? [Any])
        #expect(writes.count == Self.queuedFiles(mum).count)
        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let sync = try mum.run(["sync"])
        #expect(sync.status == 0 && !sync.output.contains("kept aside"), "\(sync.output)")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.count == writes.count)
        #expect(server.stop() == 0)
    }

    @Test("another login on the same computer never sends, shows or counts a member's waiting writes")
    func anotherLogin() throws {
        var server = try ServerProcess.fresh()
        let mum = try Self.member(server)
        let port = server.address.port
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(server.stop() == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])

        // Dad logs in at the same terminal (the same files).
        #expect(try mum.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try mum.run(["prompt", "--format", "{amount} {unsent}"]).output == "? 0\n")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.isEmpty)
        #expect(try mum.run(["outbox"]).output == "nothing waits on this computer\n")
        #expect(Self.queuedFiles(mum).count == 1)
        // Mum again: hers go with her login.
        let back = try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(back.error.contains("sent 1 write"), "\(back.error)")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.map(\.amountMl) == [250])
        #expect(server.stop() == 0)
    }
}
