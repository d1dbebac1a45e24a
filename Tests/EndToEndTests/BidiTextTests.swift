import Foundation
import Testing
import WaterProtocol

/// Issue 32, item 26: a todo item, a habit's name or a display name that would reorder or hide
/// what others read is refused by the server (65), as a control character is.
@Suite("Bidi overrides and invisible characters in shared text, end to end", .serialized)
struct BidiTextTests {
    @Test("todo add, habit add, member add --display-name and member rename refuse U+202E, U+200B, U+2066 and tags")
    func refused() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let texts = ["pay \u{202E}fdp.exe", "zero\u{200B}width", "buy \u{2066}milk\u{2069}", "tag\u{E0041}ged"]
        for text in texts {
            let todo = try mum.run(["todo", "add", text])
            #expect(todo.status == 65 && todo.error.contains("invisible"), "\(todo)")
            let habit = try mum.run(["habit", "add", text])
            #expect(habit.status == 65 && habit.error.contains("a habit's name cannot hold"), "\(habit)")
            let member = try mum.run(
                ["member", "add", "kim", "--child", "--display-name", text])
            #expect(member.status == 65 && member.error.contains("a display name cannot hold"), "\(member)")
            // What is refused is shown as escapes, never as what it would do.
            #expect(!todo.error.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x200B })
        }
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)
        let renamed = try mum.run(["member", "rename", "kim", "--display-name", "Kim\u{202E}"])
        #expect(renamed.status == 65, "\(renamed)")
        #expect(try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items.isEmpty)
    }
}
