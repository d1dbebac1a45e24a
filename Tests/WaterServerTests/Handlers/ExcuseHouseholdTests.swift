import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// `Excuses/ExcuseHousehold`: the same days for every member at once (issue 32 item 8).
@Suite("Excusing the whole household")
struct ExcuseHouseholdTests {
    typealias H = HandlerHarness

    @Test("an admin excuses everyone's days, children's too, each in their own diary")
    func everyone() throws {
        let h = try H()
        let ben = try h.addMember("ben")
        let response = try h.call(
            h.services.api.excuses.excuseHousehold,
            WaterV1.ExcuseHouseholdRequest(fromDate: "2026-12-01", toDate: "2026-12-03", reason: "holiday"),
            as: h.admin
        ).get()
        #expect(response.members.map(\.username) == [h.admin.username, "ben"].sorted())
        for member in response.members {
            #expect(member.days.map(\.date) == ["2026-12-01", "2026-12-02", "2026-12-03"])
            #expect(member.days.allSatisfy { $0.excused && $0.excusedReason == "holiday" })
        }
        let bens = try h.call(h.tracker.today, WaterV1.GetTodayRequest(), as: ben, now: H.monday + 24 * H.hour).get()
        #expect(bens.day?.excused == true && bens.day?.excusedReason == "holiday")
    }

    /// (Only admins may call it: the router's rule, checked end to end in AuthorizationTests.)
    @Test("one member past 14 in 28 refuses the whole call, naming them, and nothing is written")
    func checkedForEveryoneFirst() throws {
        let h = try H()
        let ben = try h.addMember("ben")
        // ben has 13 days excused already: two more in the same 28 would be 15.
        _ = try h.call(
            h.services.api.excuses.excuse,
            WaterV1.ExcuseDaysRequest(fromDate: "2026-11-10", toDate: "2026-11-22", reason: "sick"), as: ben
        ).get()
        let error = try #require(
            h.call(
                h.services.api.excuses.excuseHousehold,
                WaterV1.ExcuseHouseholdRequest(fromDate: "2026-12-01", toDate: "2026-12-02"), as: h.admin
            ).error)
        #expect(error.code == .invalidArgument && error.message.hasPrefix("for ben: "), "\(error.message)")
        #expect(error.violations.map(\.field) == ["days"])
        let admins = try h.call(
            h.tracker.today, WaterV1.GetTodayRequest(), as: h.admin, now: H.monday + 24 * H.hour
        ).get()
        #expect(admins.day?.excused == false, "the admin, checked before ben, was not excused either")
    }
}
