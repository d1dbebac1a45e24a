import Foundation
import Synchronization
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync

/// One archive written from many connections at once, through the real server (issue 13):
/// one member's archive from 10 connections, the accounts from 3 connections logging in over
/// and over, the household's list from 3 connections adding todos; then a restart, clean and
/// after SIGKILL, finds every acknowledged write exactly once and `check` clean.
@Suite("Concurrent writes to one archive, end to end", .serialized)
struct ConcurrentWritesTests {
    /// What the writers were told is durable, and everything they tried.
    final class Writes: Sendable {
        let water = Locked(Set<String>())
        let waterTried = Locked(Set<String>())
        let tokens = Locked([[UInt8]]())
        let todos = Locked(Set<String>())
        let todosTried = Locked(Set<String>())
        let acknowledged = Atomic<Int>(0)
        /// Set once the test has killed the server.
        let killed = Atomic<Bool>(false)
    }

    static let dadPassword = "dad-password-1"

    /// The first hour mum's drinks are logged at: 100 000 hours back. Each drink has an hour
    /// of its own from there, so her archive stays within its caps (24 drinks a day, at most
    /// 8 784 a year, under 100 000 in all: WaterLimits).
    static let firstDrinkHour = UnixTime.nowMilliseconds() / 3_600_000 - 100_000

    /// Runs the 16 connections until each has made `perConnection` writes (or the server
    /// went away), calling `whileRunning` with the running count of acknowledged writes. The
    /// drinks take the hours from `hour` on (after ``firstDrinkHour``), one each.
    static func drive(
        _ server: ServerProcess, perConnection: (water: Int, logins: Int, todos: Int), from hour: Int64,
        into writes: Writes, whileRunning: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        let address = server.address
        let group = DispatchGroup()
        func connection(_ body: @escaping @Sendable (WaterClient) throws -> Void) {
            group.enter()
            Thread {
                defer { group.leave() }
                guard
                    let client = try? WaterClient(
                        configuration: ClientConfiguration(server: address, security: .plaintext))
                else { return }
                try? body(client)
            }.start()
        }
        for connectionIndex in 0..<10 {
            connection { client in
                try client.login(username: "mum", password: adminPassword)
                for n in 0..<perConnection.water {
                    let id = client.newID().description
                    writes.waterTried.withLock { _ = $0.insert(id) }
                    let at = (firstDrinkHour + hour + Int64(n * 10 + connectionIndex)) * 3_600_000
                    _ = try client.call(WaterV1.LogWaterRequest(entryID: id, amountMl: 100, atUnixMs: at))
                    writes.water.withLock { _ = $0.insert(id) }
                    whileRunning(writes.acknowledged.add(1, ordering: .relaxed).newValue)
                }
            }
        }
        for _ in 0..<3 {
            connection { client in
                for _ in 0..<perConnection.logins {
                    let response = try client.call(WaterV1.LoginRequest(username: "dad", password: dadPassword))
                    writes.tokens.withLock { $0.append(response.authToken) }
                    whileRunning(writes.acknowledged.add(1, ordering: .relaxed).newValue)
                }
            }
        }
        for _ in 0..<3 {
            connection { client in
                try client.login(username: "mum", password: adminPassword)
                for n in 0..<perConnection.todos {
                    let id = client.newID().description
                    writes.todosTried.withLock { _ = $0.insert(id) }
                    _ = try client.call(WaterV1.AddTodoRequest(itemID: id, text: "task \(n) \(id.prefix(8))"))
                    writes.todos.withLock { _ = $0.insert(id) }
                    whileRunning(writes.acknowledged.add(1, ordering: .relaxed).newValue)
                }
            }
        }
        group.wait()
    }

    /// Every acknowledged write is stored exactly once, nothing was invented, and `check`
    /// finds every archive healthy.
    static func verify(_ server: ServerProcess, _ writes: Writes) throws {
        let mum = try server.client("mum", password: adminPassword)
        var entries: [String] = []
        try mum.stream(WaterV1.ExportRequest()) { response in
            entries += response.history?.entries.map(\.entryID) ?? []
            return true
        }
        let stored = Set(entries)
        #expect(stored.count == entries.count, "\(entries.count - stored.count) drinks are stored twice")
        let (water, waterTried) = (writes.water.withLock { $0 }, writes.waterTried.withLock { $0 })
        #expect(water.subtracting(stored).isEmpty, "\(water.subtracting(stored).count) acknowledged drinks lost")
        #expect(stored.isSubset(of: waterTried))

        let items = try mum.call(WaterV1.ListTodosRequest()).items.map(\.itemID)
        #expect(Set(items).count == items.count, "todos stored twice")
        let (todos, todosTried) = (writes.todos.withLock { $0 }, writes.todosTried.withLock { $0 })
        #expect(todos.subtracting(items).isEmpty, "\(todos.subtracting(items).count) acknowledged todos lost")
        #expect(Set(items).isSubset(of: todosTried))

        let dad = try WaterClient(configuration: ClientConfiguration(server: server.address, security: .plaintext))
        var lostSessions = 0
        for token in writes.tokens.withLock({ $0 }) {
            dad.token = token
            if (try? dad.call(WaterV1.WhoAmIRequest()))?.member?.username != "dad" { lostSessions += 1 }
        }
        #expect(lostSessions == 0, "\(lostSessions) acknowledged logins lost")

        let check = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(check.status == 0 && check.output.contains("healthy"), "\(check.output)")
    }

    @Test(
        "16 connections on three archives, 90 000 writes in all: nothing acknowledged is lost over a clean restart and a SIGKILL"
    )
    func manyConnectionsOneArchive() throws {
        // All 16 connect at once from one address: room for all of them in their handshake.
        let options = ["--max-per-address", "64"]
        var server = try ServerProcess.fresh(options)
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: Self.dadPassword))

        // Clean restart. The household's list holds 500 items at most (TodoList.maximumItems):
        // 3 * 100 now and 3 * 60 below stay within it. Mum's drinks, 40 000 now and at most
        // 55 000 below, stay within the 100 000 an archive holds (WaterLimits.maximumEntries).
        let writes = Writes()
        Self.drive(server, perConnection: (water: 4000, logins: 400, todos: 100), from: 0, into: writes)
        let first = writes.acknowledged.load(ordering: .relaxed)
        #expect(first == 10 * 4000 + 3 * 400 + 3 * 100, "every write was acknowledged while the server ran")
        server = try server.restarted(options)
        try Self.verify(server, writes)

        // SIGKILL in the middle of the load, after another 50 000 acknowledged writes.
        let pid = server.pid
        Self.drive(server, perConnection: (water: 5500, logins: 600, todos: 60), from: 40_000, into: writes) { count in
            if count >= first + 50_000,
                writes.killed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
            {
                kill(pid, SIGKILL)
            }
        }
        let (wasKilled, total) = (writes.killed.load(ordering: .relaxed), writes.acknowledged.load(ordering: .relaxed))
        #expect(wasKilled, "the server was killed in the middle of the load")
        #expect(total >= 90_000, "\(total) writes acknowledged in all")
        server = try server.killedAndRestarted(options)
        try Self.verify(server, writes)
        #expect(server.stop() == 0)
    }
}
