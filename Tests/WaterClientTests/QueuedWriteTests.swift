import Foundation
import Testing
import WaterCore
import WaterProtocol

@testable import WaterClient

/// The one value each kind of queued write is: its file, how it is kept for later, its words.
@Suite("QueuedWrite")
struct QueuedWriteTests {
    static let noon: Int64 = 1_796_126_400_000  // 2026-12-01 12:00 UTC, a Tuesday
    static let entry = "0193a4b2-c3d4-8e5f-8a6b-7c8d9e0f1a2b"

    static let every: [QueuedWrite] = [
        .log(WaterV1.LogWaterRequest(entryID: entry, amountMl: 250, atUnixMs: noon)),
        .edit(WaterV1.EditWaterRequest(entryID: entry, amountMl: 300)),
        .remove(WaterV1.DeleteWaterRequest(entryID: entry)),
        .habitCheck(WaterV1.CheckHabitRequest(habitID: entry, date: "2026-12-01")),
        .habitUncheck(WaterV1.UncheckHabitRequest(habitID: entry, date: "2026-11-30")),
        .todoAdd(WaterV1.AddTodoRequest(itemID: entry, text: "buy filters")),
        .todoDone(WaterV1.SetTodoDoneRequest(itemID: entry, done: true)),
        .todoDone(WaterV1.SetTodoDoneRequest(itemID: entry, done: false)),
        .privacy(WaterV1.SetPrivacyRequest(privacy: .percent)),
    ]

    @Test("every kind is written to an outbox file and read back as it was, under the kind names of before")
    func fileRoundTrip() throws {
        let kinds = Self.every.map(\.kind.rawValue)
        #expect(
            kinds == [
                "log", "edit", "rm", "habit-check", "habit-uncheck", "todo-add", "todo-done", "todo-undone", "privacy",
            ])
        for write in Self.every {
            let stored = Outbox.Write(
                name: "1.write", server: "pi:7420", username: "mum", queuedAtUnixMs: Self.noon, request: write)
            let text = Outbox.encode(stored)
            #expect(Outbox.decode(Array(text.utf8), name: "1.write") == stored, "\(text)")
        }
    }

    @Test("a request that is not its kind's does not read (the outbox puts such a file aside)")
    func mismatchedKind() {
        let undone = WaterV1.SetTodoDoneRequest(itemID: Self.entry, done: false).serializedBytes()
        #expect(QueuedWrite(kind: .todoDone, serializedRequest: undone) == nil)
        #expect(QueuedWrite(kind: .todoUndone, serializedRequest: undone) != nil)
        #expect(QueuedWrite(kind: .log, serializedRequest: [0xFF, 0xFF]) == nil)
    }

    @Test("kept for later: now and the usual cup are fixed as typed, today is the day it was typed")
    func keptForLater() {
        let now = Self.noon + 5
        let tokyo = MemberTimeZone(
            identifier: "Asia/Tokyo", offsets: UTCOffsetTable(initialOffset: 9 * 3600, instants: [], offsets: []))
        let log = QueuedWrite.log(WaterV1.LogWaterRequest(entryID: Self.entry))
        #expect(
            log.keptForLater(now: now, zone: .utc, usualCupMl: 330)
                == .log(WaterV1.LogWaterRequest(entryID: Self.entry, amountMl: 330, atUnixMs: now)))
        // No cup heard of yet: the server's usual cup, when it is sent.
        #expect(
            log.keptForLater(now: now, zone: .utc, usualCupMl: 0)
                == .log(WaterV1.LogWaterRequest(entryID: Self.entry, amountMl: 0, atUnixMs: now)))
        let typed = QueuedWrite.log(WaterV1.LogWaterRequest(entryID: Self.entry, amountMl: 100, atUnixMs: 7))
        #expect(typed.keptForLater(now: now, zone: .utc, usualCupMl: 330) == typed)
        // 21:00 UTC on 1 December is 2 December in Tokyo.
        let late = Self.noon + 9 * 3_600_000
        #expect(
            QueuedWrite.habitCheck(WaterV1.CheckHabitRequest(habitID: "h")).keptForLater(
                now: late, zone: tokyo, usualCupMl: 0)
                == .habitCheck(WaterV1.CheckHabitRequest(habitID: "h", date: "2026-12-02")))
        #expect(
            QueuedWrite.habitUncheck(WaterV1.UncheckHabitRequest(habitID: "h")).keptForLater(
                now: late, zone: .utc, usualCupMl: 0)
                == .habitUncheck(WaterV1.UncheckHabitRequest(habitID: "h", date: "2026-12-01")))
        for write in Self.every.dropFirst() where write.kind != .habitCheck && write.kind != .habitUncheck {
            #expect(write.keptForLater(now: now, zone: .utc, usualCupMl: 330) == write)
        }
    }

    @Test("each kind in words, with names this computer knows and short ids for the rest")
    func words() {
        var cache = StatusCache(server: "s", username: "u")
        cache.habits = [WaterV1.Habit(habitID: Self.entry, name: "Stretch")]
        let expected = [
            "log 250 ml at 12:00 on Tue 2026-12-01", "change drink a4b2c3d4 to 300 ml", "remove drink a4b2c3d4",
            "check Stretch on 2026-12-01", "uncheck Stretch on 2026-11-30", "add \"buy filters\" to the list",
            "mark a4b2c3d4 done", "mark a4b2c3d4 not done", "set your privacy to percent",
        ]
        #expect(Self.every.map { $0.words(zone: .utc, cache: cache) } == expected)
        cache.todos = [WaterV1.TodoItem(itemID: Self.entry, text: "buy filters")]
        #expect(Self.every[7].words(zone: .utc, cache: cache) == "mark \"buy filters\" not done")
        #expect(
            QueuedWrite.log(WaterV1.LogWaterRequest(entryID: Self.entry, atUnixMs: Self.noon)).words(
                zone: .utc, cache: nil) == "log your usual cup at 12:00 on Tue 2026-12-01")
    }

    @Test("its JSON is its request's, as --json prints a write kept for later")
    func json() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Self.every[0]), as: UTF8.self)
        #expect(
            text
                == #"{"amount_ml":250,"at_unix_ms":1796126400000,"drink":"","entry_id":"\#(Self.entry)","for_member":"","usual_drink":false}"#,
            "\(text)")
    }
}

/// What a client refuses before keeping a write for later, by the server's own rules.
@Suite("QueuedWrite checks")
struct QueuedWriteCheckTests {
    static let now = QueuedWriteTests.noon

    static func refusal(_ write: QueuedWrite) -> WaterError? {
        do {
            try write.check(now: now, zone: .utc)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "refused as the server refuses them, naming the field",
        arguments: [
            (
                QueuedWrite.log(WaterV1.LogWaterRequest(entryID: "e", amountMl: 250, atUnixMs: now + 3 * 60_000)),
                "at_unix_ms"
            ),
            (.log(WaterV1.LogWaterRequest(entryID: "e", amountMl: 2001)), "amount_ml"),
            (.edit(WaterV1.EditWaterRequest(entryID: "e", atUnixMs: 900_000_000_000)), "at_unix_ms"),
            (.habitCheck(WaterV1.CheckHabitRequest(habitID: "h", date: "2026-12-02")), "date"),
            (.habitUncheck(WaterV1.UncheckHabitRequest(habitID: "h", date: "2027-01-01")), "date"),
            (.todoAdd(WaterV1.AddTodoRequest(itemID: "i", text: "tea")), "text"),
            (.todoAdd(WaterV1.AddTodoRequest(itemID: "i", text: "milk\u{1B}[2J")), "text"),
        ])
    func refused(write: QueuedWrite, field: String) throws {
        let error = try #require(Self.refusal(write))
        #expect(error.code == .invalidArgument)
        #expect(error.violations.map(\.field) == [field], "\(error)")
    }

    @Test("what only the server can judge, and the clock skew it allows, pass")
    func passes() {
        let fine: [QueuedWrite] = [
            .log(WaterV1.LogWaterRequest(entryID: "e")),
            .log(WaterV1.LogWaterRequest(entryID: "e", amountMl: 2000, atUnixMs: Self.now + 60_000)),
            .edit(WaterV1.EditWaterRequest(entryID: "e", amountMl: 1)),
            .remove(WaterV1.DeleteWaterRequest(entryID: "not an id the server knows")),
            .habitCheck(WaterV1.CheckHabitRequest(habitID: "h", date: "2026-12-01")),
            .habitCheck(WaterV1.CheckHabitRequest(habitID: "h")),
            .todoAdd(WaterV1.AddTodoRequest(itemID: "i", text: "buy filters")),
            .todoDone(WaterV1.SetTodoDoneRequest(itemID: "i", done: true)),
        ]
        #expect(fine.compactMap(Self.refusal).isEmpty)
    }
}
