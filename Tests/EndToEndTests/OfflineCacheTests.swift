import Foundation
import Testing
import WaterProtocol

/// Issue 32, items 17 and 18: what this computer heard is enough to log a named cup away from
/// the server, and what it did not hear is said.
@Suite("Offline: what the cache knows, end to end", .serialized)
struct OfflineCacheTests {
    /// `mum` logged in at `home` (a computer of her own: its config and state).
    private static func mum(at home: String, _ server: ServerProcess) throws -> CommandLineUser {
        let person = server.cli(home)
        #expect(try person.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        return person
    }

    @Test("item 17: a cup added here, listed here or logged here online can be logged away from the server")
    func cupsLearned() throws {
        let server = try ServerProcess.fresh()
        let desk = try Self.mum(at: "desk", server)
        let laptop = try Self.mum(at: "laptop", server)
        let phone = try Self.mum(at: "phone", server)
        #expect(try desk.run(["cup", "add", "mug", "350"]).status == 0)
        #expect(try desk.run(["cup", "add", "latte", "250", "--drink", "milk"]).status == 0)
        #expect(try laptop.run(["cup", "ls"]).status == 0)
        #expect(try phone.run(["log", "latte"]).status == 0)
        #expect(server.stop() == 0)

        let added = try desk.run(["log", "mug"])
        #expect(added.status == 0 && added.output.hasPrefix("saved on this computer: log 350 ml"), "\(added)")
        let listed = try laptop.run(["log", "latte"])
        #expect(listed.status == 0 && listed.output.hasPrefix("saved on this computer: log 250 ml milk"), "\(listed)")
        let logged = try phone.run(["log", "latte"])
        #expect(logged.status == 0 && logged.output.hasPrefix("saved on this computer: log 250 ml milk"), "\(logged)")
        // A cup this computer never heard of is still refused, with the drinks it knows.
        let unknown = try phone.run(["log", "mug"])
        #expect(unknown.status == 65 && unknown.error.contains("no drink called mug"), "\(unknown)")
    }

    @Test("item 18: away from the server, week on a computer that heard only today says so")
    func weekHeardOnlyToday() throws {
        let server = try ServerProcess.fresh()
        let desk = try Self.mum(at: "desk", server)
        #expect(try desk.run(["log", "300"]).status == 0)
        #expect(server.stop() == 0)

        let week = try desk.run(["week"])
        #expect(week.status == 0, "\(week)")
        #expect(
            week.output.contains(
                "this computer has heard only of today: the 6 days before it show once the server can be reached"),
            "\(week.output)")
        let json = try desk.run(["--json", "week"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect((object["not_heard"] as? [String])?.count == 6, "\(json.output)")
        let history = try desk.run(["history", "--days", "3"])
        #expect(
            history.output.contains("the 2 days before it show once the server can be reached"), "\(history.output)")
    }
}
