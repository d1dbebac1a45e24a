import Dispatch
import Foundation
import Glibc
import WaterClient
import WaterProtocol
import WaterSync
import WaterTransport

/// `water-bench stress`: kill -9 cycles against the real water-server (issue 13).
///
/// Each cycle starts the server on the same data directory, drives it from 12 connections —
/// two per member logging drinks (three members), three logging in and out again and again
/// (the accounts archive), three adding and removing todos (the household's list) — kills it
/// with SIGKILL at a random moment, restarts it, and checks that every write acknowledged so far
/// is stored exactly once and that `water-server check` finds every archive healthy. Talks to 127.0.0.1 only, and
/// stops every process it starts by pid.
struct StressTest {
    let directory: String
    let cycles: Int
    static let members = [("mum", "mum-password-1"), ("dad", "dad-password-1"), ("kid", "kid-password-1")]

    /// What the writers were told is durable, by member, and every id they tried.
    final class Ledger: Sendable {
        let drinks = Locked([String: Set<String>]())
        let tried = Locked(Set<String>())
        let todos = Locked(Set<String>())
        let removedTodos = Locked(Set<String>())
        /// This cycle's sessions: logged in and kept, and logged in then out.
        let kept = Locked([[UInt8]]())
        let ended = Locked([[UInt8]]())
    }

    struct Totals {
        var acknowledged = 0
        var lost = 0
        var duplicated = 0
        var damaged = 0
    }

    func run() throws -> Totals {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        let server = productsDirectory + "/water-server"
        guard
            try Spawned.run(
                server,
                [
                    "init", "--data", data, "--admin", "mum", "--password-stdin", "--password-strength",
                    "minimum", "--time-zone", "UTC",
                ], input: Self.members[0].1 + "\n") == 0
        else { throw WaterError(.internal, "water-server init failed") }
        try withServer(data) { address in
            let mum = try login(address, Self.members[0])
            for (name, password) in Self.members.dropFirst() {
                _ = try mum.call(WaterV1.AddMemberRequest(username: name, password: password))
            }
        }

        let ledger = Ledger()
        var totals = Totals()
        var random = SystemRandomNumberGenerator()
        for cycle in 1...cycles {
            let spawned = try start(data)
            let address = try spawned.listeningAddress()
            ledger.kept.withLock { $0.removeAll() }
            ledger.ended.withLock { $0.removeAll() }
            let writers = drive(address, into: ledger)
            usleep(UInt32.random(in: 50_000...400_000, using: &random))
            kill(spawned.pid, SIGKILL)
            spawned.process.waitUntilExit()
            writers.wait()

            let damaged = totals.damaged + (try Spawned.run(server, ["check", "--data", data]) == 0 ? 0 : 1)
            try withServer(data) { address in totals = try verify(address, ledger) }
            totals.damaged = damaged
            if cycle % 10 == 0 || totals.lost + totals.duplicated + totals.damaged > 0 {
                FileHandle.standardError.write(
                    Data(
                        ("cycle \(cycle): acknowledged \(totals.acknowledged) lost \(totals.lost) "
                            + "duplicated \(totals.duplicated) damaged \(totals.damaged)\n").utf8))
            }
            if totals.lost + totals.duplicated + totals.damaged > 0 { break }
        }
        return totals
    }

    private func start(_ data: String) throws -> Spawned {
        try Spawned(
            productsDirectory + "/water-server",
            [
                "serve", "--data", data, "--listen", "127.0.0.1:0", "--plaintext", "--password-strength", "minimum",
                "--time-zone",
                "UTC",
            ])
    }

    /// Runs `body` against a server that is stopped cleanly afterwards.
    private func withServer(_ data: String, _ body: (HostPort) throws -> Void) throws {
        let spawned = try start(data)
        defer { spawned.stop() }
        try body(
            try spawned.listeningAddress())
    }

    private func login(_ address: HostPort, _ member: (String, String)) throws -> WaterClient {
        let client = try WaterClient(configuration: ClientConfiguration(server: address, security: .plaintext))
        try client.login(username: member.0, password: member.1)
        return client
    }

    /// Starts the 12 writing connections; each stops at its first failure (the kill), and at
    /// most after 20 000 writes.
    private func drive(_ address: HostPort, into ledger: Ledger) -> DispatchGroup {
        let group = DispatchGroup()
        func connection(_ body: @escaping @Sendable () throws -> Void) {
            group.enter()
            Thread {
                defer { group.leave() }
                try? body()
            }.start()
        }
        for member in Self.members {
            for _ in 0..<2 {
                connection {
                    let client = try login(address, member)
                    for _ in 0..<20_000 {
                        // Within the member's caps: 25 a day on days of their own (``BenchDrinks``),
                        // taken one by one, since the kill ends the loop anywhere.
                        let at = BenchDrinks.times(1, for: Array(member.0.utf8))[0]
                        let id = client.newID().description
                        ledger.tried.withLock { _ = $0.insert(id) }
                        _ = try client.call(WaterV1.LogWaterRequest(entryID: id, amountMl: 10, atUnixMs: at))
                        ledger.drinks.withLock { _ = $0[member.0, default: []].insert(id) }
                    }
                }
            }
        }
        for _ in 0..<3 {
            connection {
                let client = try WaterClient(configuration: ClientConfiguration(server: address, security: .plaintext))
                for n in 0..<20_000 {
                    let response = try client.call(
                        WaterV1.LoginRequest(username: Self.members[2].0, password: Self.members[2].1))
                    // One session in ten is kept; the others end at once (a second accounts write).
                    guard n % 10 != 0 else {
                        ledger.kept.withLock { $0.append(response.authToken) }
                        continue
                    }
                    client.token = response.authToken
                    _ = try client.call(WaterV1.LogoutRequest())
                    ledger.ended.withLock { $0.append(response.authToken) }
                }
            }
        }
        for _ in 0..<3 {
            connection {
                let client = try login(address, Self.members[1])
                for n in 0..<20_000 {
                    let id = client.newID().description
                    ledger.tried.withLock { _ = $0.insert(id) }
                    _ = try client.call(WaterV1.AddTodoRequest(itemID: id, text: "chore \(n) \(id.suffix(6))"))
                    ledger.todos.withLock { _ = $0.insert(id) }
                    // A household's list stays short: all but one item in a hundred are done with.
                    guard n % 100 != 0 else { continue }
                    // Once the removal is sent, either outcome is right until it is acknowledged.
                    ledger.todos.withLock { _ = $0.remove(id) }
                    _ = try client.call(WaterV1.DeleteTodoRequest(itemID: id))
                    ledger.removedTodos.withLock { _ = $0.insert(id) }
                }
            }
        }
        return group
    }

    /// Compares what the restarted server stores with everything acknowledged so far.
    private func verify(_ address: HostPort, _ ledger: Ledger) throws -> Totals {
        var totals = Totals()
        let drinks = ledger.drinks.withLock { $0 }
        let tried = ledger.tried.withLock { $0 }
        for member in Self.members {
            let client = try login(address, member)
            var stored: [String] = []
            try client.stream(WaterV1.ExportRequest()) { response in
                stored += response.history?.entries.map(\.entryID) ?? []
                return true
            }
            let acknowledged = drinks[member.0] ?? []
            totals.acknowledged += acknowledged.count
            totals.lost += acknowledged.subtracting(stored).count
            totals.duplicated += stored.count - Set(stored).count
            totals.lost += Set(stored).subtracting(tried).count  // stored but never sent: as bad as lost
        }
        let (todos, removed) = (ledger.todos.withLock { $0 }, ledger.removedTodos.withLock { $0 })
        let items = try login(address, Self.members[0]).call(WaterV1.ListTodosRequest()).items.map(\.itemID)
        totals.acknowledged += todos.count + 2 * removed.count
        totals.lost += todos.subtracting(items).count
        totals.lost += removed.intersection(items).count  // a removal acknowledged but undone: lost too
        totals.duplicated += items.count - Set(items).count

        // This cycle's sessions: a kept one still works, an ended one no longer does.
        let checker = try WaterClient(configuration: ClientConfiguration(server: address, security: .plaintext))
        for (tokens, working) in [(ledger.kept.withLock { $0 }, true), (ledger.ended.withLock { $0 }, false)] {
            totals.acknowledged += tokens.count
            for token in tokens {
                checker.token = token
                let works = (try? checker.call(WaterV1.WhoAmIRequest()))?.member?.username == Self.members[2].0
                if works != working { totals.lost += 1 }
            }
        }
        return totals
    }
}
