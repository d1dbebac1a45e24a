import Foundation
import Testing
import WaterProtocol

/// Issue 32, item 20: a household drink has a name people read beside the key they type, and a
/// cup whose drink was removed says so.
@Suite("Drinks' display names, end to end", .serialized)
struct DrinkNamesTests {
    @Test("drink add and set keep a display name (Kräutertee, Almdudler); drink ls shows it; --json carries it")
    func displayNames() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let added = try mum.run(["drink", "add", "almdudler", "--factor", "1.00", "--display-name", "Almdudler"])
        #expect(added.status == 0, "\(added)")
        let set = try mum.run(["drink", "set", "tea", "--display-name", "Kräutertee"])
        #expect(set.status == 0, "\(set)")
        let listed = try mum.run(["drink", "ls"])
        #expect(listed.output.contains("tea        1.00  Kräutertee"), "\(listed.output)")
        #expect(listed.output.contains("almdudler  1.00  Almdudler"), "\(listed.output)")
        let json = try mum.run(["--json", "drink", "ls"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        let drinks = try #require(object["drinks"] as? [[String: Any]])
        #expect(drinks.first { $0["name"] as? String == "tea" }?["display_name"] as? String == "Kräutertee")
        // Shared text: what others read is checked as a display name is.
        let refused = try mum.run(["drink", "set", "tea", "--display-name", "Tee\u{202E}"])
        #expect(refused.status == 65 && refused.error.contains("a drink's display name cannot hold"), "\(refused)")
    }

    @Test("cup ls says which cup's drink the household has removed, and what to do")
    func cupOfRemovedDrink() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["drink", "add", "cocoa", "--factor", "1.20"]).status == 0)
        #expect(try mum.run(["cup", "add", "mug", "350", "--drink", "cocoa"]).status == 0)
        #expect(try mum.run(["cup", "add", "glass", "200"]).status == 0)
        #expect(try mum.run(["drink", "rm", "cocoa"]).status == 0)
        let listed = try mum.run(["cup", "ls"])
        #expect(
            listed.output.contains(
                "mug    350 ml cocoa (no longer one of the household's drinks: cup add mug 350 --drink DRINK)"),
            "\(listed.output)")
        #expect(listed.output.contains("glass  200 ml\n"), "\(listed.output)")
    }
}
