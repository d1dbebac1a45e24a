import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// What a handler answered on the loop records of its own writes (``CallWrites``): the group of
/// the log each was queued in and its archive's epoch, which alone can refuse its reply.
@Suite("The groups and archives a call's own writes were queued in")
struct CallWritesTests {
    typealias H = HandlerHarness

    @Test("a write records the group and archive it was queued in, a read records nothing, and take forgets it")
    func recordsItsOwnGroup() throws {
        let h = try H()
        let writes = CallWrites()
        var context = H.context(H.caller(h.admin), now: H.monday, from: "127.0.0.1")
        context.writes = writes
        let committer = h.services.store.committer

        _ = try h.tracker.logWater(WaterV1.LogWaterRequest(entryID: newID(), amountMl: 250), context)
        let first = try #require(writes.take())
        #expect(first.first.group == committer.lastQueuedGroup && first.more.isEmpty)
        #expect(writes.take() == nil, "taken: the next call starts with nothing")

        _ = try h.tracker.today(WaterV1.GetTodayRequest(), context)
        #expect(writes.take() == nil, "a read wrote nothing")

        // Each write is in a group of its own here (no writer thread: the call commits it).
        _ = try h.tracker.logWater(WaterV1.LogWaterRequest(entryID: newID(), amountMl: 300), context)
        let second = try #require(writes.take())
        #expect(second.first.group > first.first.group && second.more.isEmpty)
        #expect(second.first.archive == first.first.archive, "the same diary, in the same epoch")

        // A zone change writes the diary, then the account: here two groups, and both count.
        _ = try h.tracker.setTimeZone(WaterV1.SetTimeZoneRequest(timeZone: "Europe/Vienna"), context)
        let both = try #require(writes.take())
        let account = try #require(both.more.first)
        #expect(both.more.count == 1 && account.group == committer.lastQueuedGroup)
        #expect(both.first.group < account.group && both.first.archive == first.first.archive)
        #expect(account.archive != both.first.archive, "the account book")
    }
}
