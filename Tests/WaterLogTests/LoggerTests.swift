import Glibc
import Testing
import WaterSync

@testable import WaterLog

/// Issue 18, item 7: what a peer puts in a value can neither forge a line nor flood the log.
@Suite("Logger")
struct LoggerTests {
    /// The lines `body` logs.
    func lines(timestamps: Bool = false, _ body: (Logger) -> Void) -> [String] {
        let lines = Locked<[String]>([])
        body(Logger(timestamps: timestamps) { line in lines.withLock { $0.append(line) } })
        return lines.withLock { $0 }
    }

    @Test("plain values stay bare; spaces, quotes, = and empty values are quoted")
    func quoting() {
        let logged = lines {
            $0.info("call failed", ["rpc.code": "5", "message": "no \"such\" entry", "x": "a=b", "e": ""])
        }
        #expect(logged == [#"info call failed rpc.code=5 message="no \"such\" entry" x="a=b" e="""#])
    }

    @Test(
        "a newline, a carriage return or any other control character in a value is escaped: one line, always",
        arguments: [
            ("2026-11-30\ninfo forged line", #""2026-11-30\ninfo forged line""#),
            ("a\rb", #""a\rb""#),
            ("\u{1B}[2J", #""\u{1B}[2J""#),
            ("next\u{2028}line", #""next\u{2028}line""#),
            ("back\\slash", #""back\\slash""#),
        ])
    func escaping(value: String, shown: String) {
        let logged = lines { $0.info("call failed", ["message": value]) }
        #expect(logged == ["info call failed message=\(shown)"])
        #expect(!logged[0].unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("issue18: printable ASCII as long as a value may be is kept whole; one byte more, or one escape, is not")
    func plainASCIIBound() {
        let limit = LogLine.maximumValueBytes
        let plain = String(repeating: "a", count: limit)
        #expect(LogLine.escaped(plain, limit: limit) == plain)
        #expect(LogLine.escaped(plain + "a", limit: limit) == plain + "…(\(limit + 1) bytes)")
        #expect(LogLine.escaped(#"say "hi" \ bye"#, limit: limit) == #"say \"hi\" \\ bye"#)
        #expect(LogLine.escaped("tab\there", limit: limit) == #"tab\there"#)
    }

    @Test("a 900 KB value is cut at 1 KiB with its length; no line is over 4 KiB with its newline")
    func bounds() {
        let huge = String(repeating: "x", count: 900_000)
        let logged = lines { logger in
            logger.info("call failed", ["message": huge, "peer": "192.0.2.7:50000"])
            logger.info(
                "many", ["a": huge, "b": huge, "c": huge, "d": huge, "e": huge, "f": "after"])
        }
        #expect(logged[0].contains("…(900000 bytes)") && logged[0].hasSuffix(" peer=192.0.2.7:50000"))
        #expect(logged.allSatisfy { $0.utf8.count + 1 <= LogLine.maximumBytes }, "\(logged.map(\.utf8.count))")
        #expect(logged[1].hasSuffix(LogLine.cutMark) && !logged[1].contains("f=after"))
    }

    @Test("with timestamps, each line starts with the UTC time to the millisecond")
    func timestamps() {
        let logged = lines(timestamps: true) { $0.warning("journal tail cut", ["bytes": "17"]) }
        let line = logged[0]
        #expect(line.hasSuffix("Z warning journal tail cut bytes=17"), "\(line)")
        let stamp = line.prefix(24)
        #expect(stamp.count == 24 && stamp.dropFirst(4).first == "-" && stamp.dropFirst(10).first == "T")
        #expect(Int(stamp.prefix(4)).map { $0 >= 2024 } == true)
    }

    @Test("a stream is the journal only when JOURNAL_STREAM names its device and inode")
    func journalStream() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        #expect(!Logger.isJournal(nil, STDERR_FILENO))
        #expect(Logger.isJournal("\(info.st_dev):\(info.st_ino)", STDERR_FILENO))
        #expect(!Logger.isJournal("\(info.st_dev):\(info.st_ino + 1)", STDERR_FILENO))
    }
}
