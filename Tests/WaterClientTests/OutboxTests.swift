import Foundation
import Testing
import WaterCore
import WaterProtocol

@testable import WaterClient

/// The outbox's files and the cache's view of today, without a server.
@Suite("Outbox and status cache")
struct OutboxTests {
    let state = NSTemporaryDirectory() + "outbox-\(UUID())"

    var outbox: Outbox { Outbox(environment: ["XDG_STATE_HOME": state]) }

    func log(_ amount: Int32, at time: Int64) -> QueuedWrite {
        .log(
            WaterV1.LogWaterRequest(
                entryID: RecordID.timeOrdered(unixMilliseconds: time, counter: 0, installation: 7).description,
                amountMl: amount, atUnixMs: time))
    }

    @Test("writes come back in the order they were made, whole, and leave once sent")
    func order() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        for (index, amount) in [300, 100, 200].enumerated() {
            try outbox.add(
                log(Int32(amount), at: 1_796_040_000_000 + Int64(index)), server: "pi:7420",
                username: "mum", now: 1_796_040_000_000 + Int64(index))
        }
        let pending = outbox.pending()
        #expect(pending.damaged.isEmpty)
        let amounts = pending.writes.map { write -> Int32? in
            guard case .log(let request) = write.request else { return nil }
            return request.amountMl
        }
        #expect(amounts == [300, 100, 200])
        #expect(pending.writes.allSatisfy { $0.server == "pi:7420" && $0.username == "mum" && $0.kind == .log })
        outbox.sent(pending.writes[0])
        #expect(outbox.pending().writes.count == 2)
    }

    @Test("a write of nothing but defaults (privacy full: an empty request) is kept and read back, not lost")
    func emptyRequest() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let full = QueuedWrite.privacy(WaterV1.SetPrivacyRequest(privacy: .full))
        #expect(full.serializedRequest.isEmpty)
        try outbox.add(full, server: "pi:7420", username: "mum", now: 1_796_040_000_000)
        let pending = outbox.pending()
        #expect(pending.damaged.isEmpty && pending.writes.map(\.request) == [full])
        // What the fuzzer found: the same file, written again, reads back the same.
        let write = try #require(pending.writes.first)
        #expect(Outbox.decode(Array(Outbox.encode(write).utf8), name: write.name) == write)
    }

    @Test("a file cut short or garbled is moved aside, never read as a write, never deleted")
    func damaged() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let write = try outbox.add(log(250, at: 1), server: "pi:7420", username: "mum", now: 5)
        let whole = try String(contentsOfFile: "\(outbox.directory)/\(write.name)", encoding: .utf8)
        for (index, text) in [String(whole.dropLast(5)), whole.replacing("request ", with: "request zz"), "\u{FF}"]
            .enumerated()
        {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(outbox.directory)/00000000000000\(index)-1-1.write"))
        }
        let pending = outbox.pending()
        #expect(pending.writes.map(\.name) == [write.name])
        #expect(pending.damaged.count == 3)
        #expect(pending.damaged.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    }

    @Test("refused writes keep their reason; retry puts them back where they were")
    func refusedAndRetried() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try outbox.add(log(250, at: 1), server: "s", username: "u", now: 1)
        try outbox.add(log(100, at: 2), server: "s", username: "u", now: 2)
        try outbox.refuse(first, reason: "a drink must be between 1 and 2000 ml\nsecond line")
        #expect(outbox.refused().map(\.refusal) == ["a drink must be between 1 and 2000 ml second line"])
        #expect(outbox.pending().writes.count == 1)
        try outbox.retry(outbox.refused()[0])
        #expect(outbox.refused().isEmpty)
        #expect(outbox.pending().writes.map(\.name).first == first.name)
    }

    @Test("today as this computer sees it: the cache's figures, queued drinks added, a new day from zero")
    func todayWithQueued() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let noon: Int64 = 1_796_040_000_000  // Monday 2026-11-30 12:00 UTC
        var cache = StatusCache(server: "s", username: "u")
        cache.record(day: WaterV1.DaySummary(date: "2026-11-30", amountMl: 600, goalMl: 2000, count: 2), now: noon)
        cache.record(
            entry: WaterV1.WaterEntry(entryID: "a", amountMl: 600, atUnixMs: noon - 1000, date: "2026-11-30"), now: noon
        )
        let queued = try outbox.add(log(250, at: noon + 60_000), server: "s", username: "u", now: noon)
        let yesterday = try outbox.add(
            log(999, at: noon - 86_400_000), server: "s", username: "u", now: noon)
        let removal = try outbox.add(
            .remove(WaterV1.DeleteWaterRequest(entryID: "a")), server: "s", username: "u",
            now: noon)
        let day = cache.today(adding: [queued, yesterday, removal], zone: MemberTimeZone.utc, now: noon + 120_000)
        #expect(day.summary.amountMl == 250 && day.summary.count == 2 && day.unsent == 2)
        #expect(day.summary.percent == 12)
        #expect(day.entries.map(\.sent) == [false])
        // The next day: nothing yet, against the goal last heard.
        let tomorrow = cache.today(adding: [], zone: .utc, now: noon + 86_400_000)
        #expect(
            tomorrow.summary.date == "2026-12-01" && tomorrow.summary.amountMl == 0 && tomorrow.summary.goalMl == 2000)
    }

    @Test("a waiting edit changes the drink it names, and moves it off the day when its time does")
    func todayWithEdits() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let noon: Int64 = 1_796_040_000_000
        var cache = StatusCache(server: "s", username: "u")
        cache.record(day: WaterV1.DaySummary(date: "2026-11-30", amountMl: 500, goalMl: 2000, count: 2), now: noon)
        for (id, amount) in [("a", Int32(300)), ("b", 200)] {
            cache.record(
                entry: WaterV1.WaterEntry(entryID: id, amountMl: amount, atUnixMs: noon - 1000, date: "2026-11-30"),
                now: noon)
        }
        let bigger = try outbox.add(
            .edit(WaterV1.EditWaterRequest(entryID: "a", amountMl: 350)), server: "s",
            username: "u", now: noon)
        let yesterday = try outbox.add(
            .edit(WaterV1.EditWaterRequest(entryID: "b", atUnixMs: noon - 86_400_000)),
            server: "s", username: "u", now: noon)
        let day = cache.today(adding: [bigger, yesterday], zone: .utc, now: noon)
        #expect(day.summary.amountMl == 350 && day.summary.count == 1 && day.unsent == 2)
        #expect(day.entries.map(\.entry.entryID) == ["a"] && day.entries.map(\.sent) == [false])
    }

    @Test("the days before today: a drink logged for one counts on it, one moved to it moves, a day not heard of shows")
    func daysWithQueued() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let noon: Int64 = 1_796_040_000_000  // Monday 2026-11-30 12:00 UTC
        let day: Int64 = 86_400_000
        var cache = StatusCache(server: "s", username: "u")
        cache.days = [
            WaterV1.DaySummary(date: "2026-11-28", amountMl: 1000, goalMl: 1500, count: 4),
            WaterV1.DaySummary(date: "2026-11-29", amountMl: 100, goalMl: 2000, count: 1),
        ]
        cache.record(day: WaterV1.DaySummary(date: "2026-11-30", amountMl: 300, goalMl: 2000, count: 1), now: noon)
        cache.record(
            entry: WaterV1.WaterEntry(entryID: "a", amountMl: 300, atUnixMs: noon - 1000, date: "2026-11-30"), now: noon
        )
        let writes = [
            try outbox.add(log(250, at: noon - day), server: "s", username: "u", now: noon),
            try outbox.add(log(400, at: noon - 3 * day), server: "s", username: "u", now: noon),
            try outbox.add(
                .edit(WaterV1.EditWaterRequest(entryID: "a", atUnixMs: noon - 2 * day)), server: "s", username: "u",
                now: noon),
        ]
        let dates = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
        let days = cache.days(dates, adding: writes, zone: .utc)
        #expect(days.map(\.summary.amountMl) == [400, 1300, 350, 0])
        #expect(days.map(\.summary.count) == [1, 5, 2, 0])
        #expect(days.map(\.summary.goalMl) == [2000, 1500, 2000, 2000])
        #expect(days.map(\.unsent) == [1, 0, 1, 1])
        #expect(days[1].entries.map(\.entry.entryID) == ["a"] && days[2].entries.map(\.sent) == [false])
        #expect(days[2].summary.percent == 17 && !days[2].summary.goalMet)
    }

    @Test("the list as each terminal showed it: kept for a few terminals, and a cache of before still reads")
    func listsShown() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        var cache = StatusCache(server: "s", username: "u")
        #expect(cache.listShown(on: "/dev/pts/1") == nil)
        for terminal in 0..<10 {
            cache.record(listShown: [WaterV1.TodoItem(itemID: "item\(terminal)")], on: "/dev/pts/\(terminal)")
        }
        cache.record(listShown: [WaterV1.TodoItem(itemID: "a"), WaterV1.TodoItem(itemID: "b")], on: "/dev/pts/4")
        #expect(cache.listShown(on: "/dev/pts/4") == ["a", "b"] && cache.todos.map(\.itemID) == ["a", "b"])
        #expect(cache.listShown(on: "/dev/pts/9") == ["item9"])
        #expect(cache.listShown(on: "/dev/pts/1") == nil && cache.todoListsShown?.count == 8)
        let path = state + "/status.json"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data(
            #"{"server":"s","username":"u","time_zone":"UTC","updated_at_unix_ms":5,"entries":[],"days":[],"usual_cup_ml":250,"habits":[],"todos":[]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: path))
        let before = try #require(StatusCache.load(path, server: "s", username: "u"))
        #expect(before.usualCupMl == 250 && before.todoListsShown == nil)
    }
}
