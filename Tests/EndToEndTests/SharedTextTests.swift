import Foundation
import Glibc
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterStore
import WaterTransport
import WaterZoneInfo

/// Issue 18, item 6: text one member shares is safe to print on everyone's terminal.
@Suite("Text members share, end to end", .serialized)
struct SharedTextTests {
    /// Four characters of 600 KB: each an "a" under 300 000 bytes of combining accents.
    static let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 75_000), count: 4)

    /// Whether `text` holds a control character other than the newlines between its lines.
    static func drivesTerminal(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0 != "\n" && $0.properties.generalCategory == .control }
    }

    @Test("todo add and habit add refuse escape sequences, a newline, C1 and 600 KB of 4 characters; nothing is stored")
    func refused() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for text in ["\u{1B}]52;c;ZXZpbA==\u{7}milk", "\u{1B}[2Jmilk", "milk\n 2. [x] forged", "milk\u{9B}31m"] {
            let added = try mum.run(["todo", "add", text])
            #expect(added.status == 65 && added.error.contains("cannot hold control characters"), "\(added.error)")
            #expect(!Self.drivesTerminal(added.error))
        }
        let habit = try mum.run(["habit", "add", "\u{1B}]0;owned\u{7}read"])
        #expect(habit.status == 65 && habit.error.contains("a habit's name cannot hold control characters"))
        // Too long for a command line's argument: straight through the library.
        let client = try server.client("mum", password: adminPassword)
        let error = #expect(throws: WaterError.self) {
            try client.call(WaterV1.AddTodoRequest(itemID: client.newID().description, text: Self.heavy))
        }
        #expect(error?.code == .invalidArgument && error?.violations.map(\.field) == ["text"])
        #expect(error?.message.contains("at most 1024 bytes") == true)
        #expect(try client.call(WaterV1.ListTodosRequest()).items.isEmpty)
        #expect(try client.call(WaterV1.ListHabitWeekRequest()).habits.isEmpty)
        #expect(server.stop() == 0)
    }

    @Test("what an older server stored (escape sequences, a newline, two 600 KB items) lists neutralised and cut")
    func olderData() throws {
        var server = try ServerProcess.fresh()
        let osc52 = "\u{1B}]52;c;ZXZpbA==\u{7}\u{1B}[2Jmilk"
        let forged = "eggs\n  3. [x] pay the bills"
        server = try server.restarted {
            // As a server before the rule would have taken them.
            let store = try FileArchiveStore(
                path: server.dataDirectory, options: StoreOptions(timeZones: ZoneInfo.system),
                owner: "an older water-server")
            defer { store.close() }
            let mum = try #require(try store.accounts.read { $0.account(named: "mum") })
            let texts = [osc52, forged, Self.heavy, Self.heavy]
            try store.household.commitAndWait { _ in
                texts.enumerated().map { n, text in
                    .added(
                        TodoItem(
                            id: RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: UInt64(n + 1)), text: text, addedBy: mum.id,
                            addedAtUnixMilliseconds: 1_796_040_000_000))
                }
            }
            let archive = try store.member(mum.id) ?? store.createMember(mum.id)
            try archive.commitAndWait { _ in
                [
                    .habit(
                        .added(
                            Habit(
                                id: RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: 9), name: "\u{1B}]0;owned\u{7}read",
                                icon: .book, color: .green, createdAtUnixMilliseconds: 1_796_040_000_000)))
                ]
            }
        }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)

        let list = try mum.run(["todo", "ls"])
        #expect(list.status == 0, "\(list.error)")
        #expect(!Self.drivesTerminal(list.output))
        #expect(list.output.split(separator: "\n").count == 4, "one line per item, none forged: \(list.output)")
        #expect(list.output.contains("\\x1b]52;c;ZXZpbA==\\x07\\x1b[2Jmilk"))
        #expect(list.output.contains("eggs\\x0a  3. [x] pay the bills"))
        #expect(list.output.utf8.count < 4000, "the 600 KB items are cut: \(list.output.utf8.count) bytes")

        // --json keeps every character (escaped as JSON escapes them) and cuts the heavy ones.
        let json = try mum.run(["--json", "todo", "ls"])
        #expect(!Self.drivesTerminal(json.output))
        let items = try JSONDecoder().decode(WaterV1.ListTodosResponse.self, from: Data(json.output.utf8)).items
        #expect(items.map(\.text).prefix(2) == [osc52, forged])
        #expect(items.suffix(2).allSatisfy { $0.text.utf8.count <= 1024 && $0.text.hasSuffix("…") })

        let habits = try mum.run(["habit", "ls"])
        #expect(habits.status == 0 && !Self.drivesTerminal(habits.output), "\(habits.output)")
        #expect(habits.output.contains("\\x1b]0;owned\\x07read"))

        // Everyone can see them, so they can be removed.
        #expect(try mum.run(["todo", "rm", "4"]).status == 0)
        #expect(try mum.run(["todo", "rm", "3"]).status == 0)
        #expect(try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items.count == 2)
        #expect(server.stop() == 0)
    }

    @Test("the limits are documented as the code has them: proto/README.md's table, deploy/README.md's threat model")
    func documented() throws {
        // Prose is wrapped anywhere: compared with every run of whitespace as one space.
        func flat(_ path: String) throws -> String {
            try String(contentsOfFile: "\(repositoryRoot)/\(path)", encoding: .utf8)
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let (proto, deploy) = (try flat("proto/README.md"), try flat("deploy/README.md"))
        func row(_ field: String, _ rule: SharedText) -> String {
            "| \(field) | \(rule.characters.lowerBound)-\(rule.characters.upperBound) | \(rule.maximumBytes) |"
        }
        #expect(proto.contains(row("`AddTodoRequest.text`", .todoText)))
        #expect(proto.contains(row("`AddHabitRequest.name` (and an import's habits)", .habitName)))
        #expect(
            proto.contains(row("`AddMemberRequest.display_name`, `RenameMemberRequest.new_display_name`", .displayName))
        )
        #expect(proto.contains("The household's list holds at most \(TodoList.maximumItems) items"))
        let (todo, name) = (SharedText.todoText, SharedText.habitName)
        #expect(
            deploy.contains(
                "an item \(todo.characters.lowerBound)-\(todo.characters.upperBound) characters and at most "
                    + "\(todo.maximumBytes) bytes, a habit name or display name \(name.characters.lowerBound)-"
                    + "\(name.characters.upperBound) characters and \(name.maximumBytes) bytes; the list holds at most "
                    + "\(TodoList.maximumItems) items"))
        #expect(name.characters == SharedText.displayName.characters)
        #expect(name.maximumBytes == SharedText.displayName.maximumBytes)
    }

    @Test("a message from a server (any server) is printed with its control characters neutralised")
    func serverMessages() throws {
        let reply = WaterV1.ResponseEnvelope(
            callID: 1,
            status: WaterV1.Status(
                code: .failedPrecondition, message: "\u{1B}]0;owned\u{7}\u{1B}[2Jupgrade me\nwater-client: all fine"),
            endOfStream: true)
        let frame = try FrameEncoder(maximumPayloadLength: 1 << 20).encode(reply.serializedBytes())
        try withFakeServer({ fd in
            _ = frame.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(fd, &buffer, buffer.count) > 0 {}
        }) { port in
            let result = try run(
                "water-client", ["--server", "127.0.0.1:\(port)", "--plaintext", "login", "mum", "--password-stdin"],
                input: adminPassword + "\n", environment: ["XDG_CONFIG_HOME": NSTemporaryDirectory() + "fake-\(UUID())"]
            )
            #expect(result.status == 1)
            #expect(!Self.drivesTerminal(result.error), "\(result.error.debugDescription)")
            #expect(result.error.contains("\\x1b]0;owned\\x07\\x1b[2Jupgrade me\\x0awater-client: all fine"))
            #expect(result.error.split(separator: "\n").count == 1)
        }
    }
}
