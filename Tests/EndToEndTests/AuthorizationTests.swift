import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol

/// Every method of the API, called by one member (ann) with another member's (bob's) ids and
/// names: bob's data must come out unchanged. A method without a row here fails the test, so
/// a method added later cannot skip this check.
@Suite("Authorization, end to end", .serialized)
struct AuthorizationTests {
    /// What ann may do to bob's things, and what she gets.
    typealias Row = @Sendable (_ ann: WaterClient, _ bob: Bob) throws -> WaterV1.StatusCode

    /// What ann knows of bob: his username and the id of one of his drinks.
    struct Bob: Sendable {
        var username: String
        var entryID: String
        var habitID: String
    }

    static func code(_ body: () throws -> Any) -> WaterV1.StatusCode {
        do {
            _ = try body()
            return .ok
        } catch {
            return (error as? WaterError)?.code ?? .unknown
        }
    }

    static let rows: [String: (expected: WaterV1.StatusCode, call: Row)] = [
        "water.v1.Connection/Handshake": (
            .failedPrecondition, { ann, _ in code { try ann.call(WaterV1.HandshakeRequest(protocolVersion: 1)) } }
        ),
        "water.v1.Accounts/Login": (
            .unauthenticated,
            { ann, bob in
                code { try ann.call(WaterV1.LoginRequest(username: bob.username, password: "ann-password-1")) }
            }
        ),
        "water.v1.Accounts/Logout": (.ok, { ann, _ in code { try ann.call(WaterV1.LogoutRequest()) } }),
        "water.v1.Accounts/WhoAmI": (.ok, { ann, _ in code { try ann.call(WaterV1.WhoAmIRequest()) } }),
        "water.v1.Accounts/ChangePassword": (
            .unauthenticated,
            { ann, _ in
                code {
                    try ann.call(
                        WaterV1.ChangePasswordRequest(currentPassword: "bob-password-1", newPassword: "taken-over-1"))
                }
            }
        ),
        "water.v1.Accounts/AddMember": (
            .permissionDenied,
            { ann, _ in
                code {
                    try ann.call(WaterV1.AddMemberRequest(username: "eve", password: "eve-password-1", role: .admin))
                }
            }
        ),
        "water.v1.Accounts/RenameMember": (
            .permissionDenied,
            { ann, bob in
                code { try ann.call(WaterV1.RenameMemberRequest(username: bob.username, newUsername: "robert")) }
            }
        ),
        "water.v1.Accounts/ResetPassword": (
            .permissionDenied,
            { ann, bob in
                code { try ann.call(WaterV1.ResetPasswordRequest(username: bob.username, newPassword: "taken-over-1")) }
            }
        ),
        "water.v1.Accounts/RemoveMember": (
            .permissionDenied,
            { ann, bob in code { try ann.call(WaterV1.RemoveMemberRequest(username: bob.username)) } }
        ),
        "water.v1.Accounts/RestoreMember": (
            .permissionDenied,
            { ann, bob in code { try ann.call(WaterV1.RestoreMemberRequest(username: bob.username)) } }
        ),
        "water.v1.Accounts/ListMembers": (.ok, { ann, _ in code { try ann.call(WaterV1.ListMembersRequest()) } }),
        // Only admins make guardians and admins: ann can make herself neither.
        "water.v1.Accounts/SetGuardian": (
            .permissionDenied,
            { ann, bob in code { try ann.call(WaterV1.SetGuardianRequest(username: bob.username, guardian: "ann")) } }
        ),
        "water.v1.Accounts/SetRole": (
            .permissionDenied,
            { ann, _ in code { try ann.call(WaterV1.SetRoleRequest(username: "ann", role: .admin)) } }
        ),
        // The same id in ann's own archive is ann's drink, not bob's.
        "water.v1.Tracker/LogWater": (
            .ok, { ann, bob in code { try ann.call(WaterV1.LogWaterRequest(entryID: bob.entryID, amountMl: 111)) } }
        ),
        "water.v1.Tracker/EditWater": (
            .notFound,
            { ann, bob in code { try ann.call(WaterV1.EditWaterRequest(entryID: bob.entryID, amountMl: 1)) } }
        ),
        "water.v1.Tracker/DeleteWater": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.DeleteWaterRequest(entryID: bob.entryID)) } }
        ),
        "water.v1.Tracker/UndoWater": (.ok, { ann, _ in code { try ann.call(WaterV1.UndoWaterRequest()) } }),
        "water.v1.Tracker/GetToday": (.ok, { ann, _ in code { try ann.call(WaterV1.GetTodayRequest()) } }),
        "water.v1.Tracker/GetHistory": (.ok, { ann, _ in code { try ann.call(WaterV1.GetHistoryRequest(days: 7)) } }),
        "water.v1.Tracker/SetGoal": (
            .ok, { ann, _ in code { try ann.call(WaterV1.SetGoalRequest(dailyGoalMl: 3000)) } }
        ),
        "water.v1.Tracker/SetUsualCup": (
            .ok, { ann, _ in code { try ann.call(WaterV1.SetUsualCupRequest(usualCupMl: 500)) } }
        ),
        // The year of another member of the household reads as the board does; a habit ann
        // does not have is not found, whoever else has one.
        "water.v1.Tracker/GetYear": (
            .notFound, { ann, _ in code { try ann.call(WaterV1.GetYearRequest(habit: "no-such-habit")) } }
        ),
        // ann's own level only: there is no field for anyone else's.
        "water.v1.Tracker/SetPrivacy": (
            .ok, { ann, _ in code { try ann.call(WaterV1.SetPrivacyRequest(privacy: .percent)) } }
        ),
        "water.v1.Tracker/GetSettings": (.ok, { ann, _ in code { try ann.call(WaterV1.GetSettingsRequest()) } }),
        // Cups are the caller's own; a name ann never added is not found, whoever else has one.
        "water.v1.Tracker/AddCup": (
            .ok,
            { ann, _ in code { try ann.call(WaterV1.AddCupRequest(cup: WaterV1.Cup(name: "mug", amountMl: 350))) } }
        ),
        "water.v1.Tracker/RemoveCup": (
            .notFound, { ann, _ in code { try ann.call(WaterV1.RemoveCupRequest(name: "flask")) } }
        ),
        // The household's drinks: every member reads them, only admins change them.
        "water.v1.Drinks/ListDrinks": (.ok, { ann, _ in code { try ann.call(WaterV1.ListDrinksRequest()) } }),
        "water.v1.Drinks/AddDrink": (
            .permissionDenied,
            { ann, _ in
                code {
                    try ann.call(WaterV1.AddDrinkRequest(drink: WaterV1.Drink(name: "cola", factorHundredths: 100)))
                }
            }
        ),
        "water.v1.Drinks/SetDrink": (
            .permissionDenied,
            { ann, _ in code { try ann.call(WaterV1.SetDrinkRequest(name: "milk", factorHundredths: 200)) } }
        ),
        "water.v1.Drinks/RemoveDrink": (
            .permissionDenied, { ann, _ in code { try ann.call(WaterV1.RemoveDrinkRequest(name: "milk")) } }
        ),

        "water.v1.Tracker/SetTimeZone": (
            .ok, { ann, _ in code { try ann.call(WaterV1.SetTimeZoneRequest(timeZone: "Asia/Tokyo")) } }
        ),
        "water.v1.Board/GetBoard": (.ok, { ann, _ in code { try ann.call(WaterV1.GetBoardRequest()) } }),
        "water.v1.Board/GetBoardHistory": (
            .ok, { ann, _ in code { try ann.call(WaterV1.GetBoardHistoryRequest(weeks: 2)) } }
        ),
        "water.v1.Board/WatchBoard": (
            .ok, { ann, _ in code { try ann.stream(WaterV1.WatchBoardRequest()) { _ in false } } }
        ),
        // The kitchen wall's links are for admins.
        "water.v1.Board/CreateWallLink": (
            .permissionDenied, { ann, _ in code { try ann.call(WaterV1.CreateWallLinkRequest(label: "mine")) } }
        ),
        "water.v1.Board/ListWallLinks": (
            .permissionDenied, { ann, _ in code { try ann.call(WaterV1.ListWallLinksRequest()) } }
        ),
        "water.v1.Board/RevokeWallLink": (
            .permissionDenied,
            { ann, _ in code { try ann.call(WaterV1.RevokeWallLinkRequest(id: "0011223344556677")) } }
        ),
        // The todo list is the household's: every member may change it, by design.
        "water.v1.Todo/AddTodo": (
            .ok,
            { ann, _ in
                code { try ann.call(WaterV1.AddTodoRequest(itemID: ann.newID().description, text: "buy filters")) }
            }
        ),
        "water.v1.Todo/ToggleTodo": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.ToggleTodoRequest(itemID: bob.entryID)) } }
        ),
        "water.v1.Todo/SetTodoDone": (
            .notFound,
            { ann, bob in code { try ann.call(WaterV1.SetTodoDoneRequest(itemID: bob.entryID, done: true)) } }
        ),
        "water.v1.Todo/DeleteTodo": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.DeleteTodoRequest(itemID: bob.entryID)) } }
        ),
        "water.v1.Todo/MoveTodo": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.MoveTodoRequest(itemID: bob.habitID, position: 0)) } }
        ),
        "water.v1.Todo/ListTodos": (.ok, { ann, _ in code { try ann.call(WaterV1.ListTodosRequest()) } }),
        "water.v1.Todo/SkipTodo": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.SkipTodoRequest(itemID: bob.entryID)) } }
        ),
        "water.v1.Todo/ListTodoHistory": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.ListTodoHistoryRequest(itemID: bob.entryID)) } }
        ),
        "water.v1.Todo/ExportTodos": (.ok, { ann, _ in code { try ann.call(WaterV1.ExportTodosRequest()) } }),
        "water.v1.Todo/ImportTodos": (.ok, { ann, _ in code { try ann.call(WaterV1.ImportTodosRequest()) } }),
        // Habits are each member's own: bob's habit id does not exist for ann.
        "water.v1.Habits/AddHabit": (
            .ok,
            { ann, _ in code { try ann.call(WaterV1.AddHabitRequest(habitID: ann.newID().description, name: "read")) } }
        ),
        "water.v1.Habits/CheckHabit": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.CheckHabitRequest(habitID: bob.habitID)) } }
        ),
        "water.v1.Habits/UncheckHabit": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.UncheckHabitRequest(habitID: bob.habitID)) } }
        ),
        "water.v1.Habits/DeleteHabit": (
            .notFound, { ann, bob in code { try ann.call(WaterV1.DeleteHabitRequest(habitID: bob.habitID)) } }
        ),
        "water.v1.Habits/ListHabitWeek": (.ok, { ann, _ in code { try ann.call(WaterV1.ListHabitWeekRequest()) } }),
        // A member excuses only their own days; another member's is refused before anything is
        // looked at (admins may excuse anyone's).
        "water.v1.Excuses/ExcuseDays": (
            .permissionDenied,
            { ann, bob in
                code {
                    try ann.call(
                        WaterV1.ExcuseDaysRequest(fromDate: "2026-12-01", reason: "sick", forMember: bob.username))
                }
            }
        ),
        "water.v1.Excuses/UnexcuseDays": (
            .permissionDenied,
            { ann, bob in
                code { try ann.call(WaterV1.UnexcuseDaysRequest(dates: ["2026-12-01"], forMember: bob.username)) }
            }
        ),
        // Reminders are ann's own, or her children's: another member's are not hers to see or set.
        "water.v1.Reminders/SetReminders": (
            .permissionDenied,
            { ann, bob in
                code {
                    try ann.call(
                        WaterV1.SetRemindersRequest(
                            reminders: WaterV1.ReminderSettings(everyMinutes: 60, from: "08:00", to: "22:00"),
                            forMember: bob.username))
                }
            }
        ),
        "water.v1.Reminders/GetReminders": (
            .permissionDenied,
            { ann, bob in code { try ann.call(WaterV1.GetRemindersRequest(forMember: bob.username)) } }
        ),
        // Only admins excuse everyone's days at once.
        "water.v1.Excuses/ExcuseHousehold": (
            .permissionDenied,
            { ann, _ in code { try ann.call(WaterV1.ExcuseHouseholdRequest(fromDate: "2026-12-01", reason: "holiday")) }
            }
        ),
        // Only admins export the household; an import goes into the caller's own archive.
        "water.v1.Transfer/Export": (
            .permissionDenied,
            { ann, _ in code { try ann.stream(WaterV1.ExportRequest(household: true)) { _ in true } } }
        ),
        "water.v1.Transfer/Import": (
            .ok,
            { ann, bob in
                code {
                    try ann.call(
                        WaterV1.ImportRequest(
                            history: WaterV1.MemberHistory(
                                member: WaterV1.Member(username: bob.username),
                                entries: [
                                    WaterV1.WaterEntry(entryID: bob.entryID, amountMl: 999, atUnixMs: 1_764_504_000_000)
                                ])))
                }
            }
        ),
    ]

    @Test("has a row for every method of the API")
    func everyMethodHasARow() {
        #expect(Set(Self.rows.keys) == Set(MethodTable.shared.methods.map(\.fullName)))
    }

    @Test("no method lets one member read or change another member's data")
    func table() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        for name in ["ann", "bob"] {
            _ = try mum.call(WaterV1.AddMemberRequest(username: name, password: "\(name)-password-1"))
        }
        let bob = try server.client("bob", password: "bob-password-1")
        let drink = try bob.call(WaterV1.LogWaterRequest(entryID: bob.newID().description, amountMl: 400))
        _ = try bob.call(WaterV1.SetGoalRequest(dailyGoalMl: 2500))
        let habit = try bob.call(
            WaterV1.AddHabitRequest(habitID: bob.newID().description, name: "read", icon: .book, color: .green))
        let habitID = try #require(habit.habit?.habitID)
        _ = try bob.call(WaterV1.CheckHabitRequest(habitID: habitID))
        let before = (
            try bob.call(WaterV1.GetTodayRequest()), try bob.call(WaterV1.GetHistoryRequest(days: 30)),
            try bob.call(WaterV1.ListHabitWeekRequest())
        )
        let bobInfo = Bob(username: "bob", entryID: drink.entry!.entryID, habitID: habitID)

        for method in MethodTable.shared.methods.map(\.fullName).sorted() {
            guard let row = Self.rows[method] else { continue }
            let ann = try server.client("ann", password: "ann-password-1")
            _ = try ann.call(WaterV1.LogWaterRequest(entryID: ann.newID().description, amountMl: 100))
            #expect(try row.call(ann, bobInfo) == row.expected, "\(method)")
        }
        let after = (
            try bob.call(WaterV1.GetTodayRequest()), try bob.call(WaterV1.GetHistoryRequest(days: 30)),
            try bob.call(WaterV1.ListHabitWeekRequest())
        )
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(after.2 == before.2)
        #expect(
            try server.client("bob", password: "bob-password-1").call(WaterV1.WhoAmIRequest()).member?.username == "bob"
        )
        #expect(server.stop() == 0)
    }
}
