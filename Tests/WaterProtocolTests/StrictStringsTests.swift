import Testing

@testable import WaterCodec
@testable import WaterProtocol

/// Every string field of every request message (and the envelope's), found through protoc-c's
/// descriptors: nested messages by their path of field names.
private func stringFields(of name: String) -> [String] {
    func walk(_ message: MessageDescriptorRef, _ path: String) -> [String] {
        message.fields.flatMap { field -> [String] in
            let fieldPath = path.isEmpty ? field.name : "\(path).\(field.name)"
            if field.isString { return [fieldPath] }
            return field.message.map { walk($0, fieldPath) } ?? []
        }
    }
    return walk(GeneratedMessages.descriptors.descriptor(named: name), "")
}

/// The protobuf encoding of a message whose field at `path` (nested through submessages) holds
/// `bytes`, and nothing else.
private func encoding(of name: String, path: String, holding bytes: [UInt8]) -> [UInt8] {
    func build(_ message: MessageDescriptorRef, _ names: ArraySlice<Substring>) -> [UInt8] {
        let field = message.fields.first { $0.name == names.first! }!
        guard names.count > 1, let nested = field.message else { return lengthDelimited(field.number, bytes) }
        return lengthDelimited(field.number, build(nested, names.dropFirst()))
    }
    return build(GeneratedMessages.descriptors.descriptor(named: name), path.split(separator: ".")[...])
}

/// One row per string field a peer can send. A string field added to a request later fails
/// `everyFieldHasARow` until it gets its row here.
private let rows: [(message: String, fields: [String])] = [
    ("water.v1.RequestEnvelope", ["method"]),
    ("water.v1.HandshakeRequest", ["client_name"]),
    ("water.v1.LoginRequest", ["username", "password"]),
    ("water.v1.LogoutRequest", []),
    ("water.v1.WhoAmIRequest", []),
    ("water.v1.ChangePasswordRequest", ["current_password", "new_password"]),
    ("water.v1.AddMemberRequest", ["username", "display_name", "password", "time_zone"]),
    ("water.v1.RenameMemberRequest", ["username", "new_username", "new_display_name"]),
    ("water.v1.ResetPasswordRequest", ["username", "new_password"]),
    ("water.v1.RemoveMemberRequest", ["username"]),
    ("water.v1.RestoreMemberRequest", ["username"]),
    ("water.v1.ListMembersRequest", []),
    ("water.v1.SetGuardianRequest", ["username", "guardian"]),
    ("water.v1.SetRoleRequest", ["username"]),
    ("water.v1.LogWaterRequest", ["entry_id", "drink", "for_member"]),
    ("water.v1.EditWaterRequest", ["entry_id", "for_member"]),
    ("water.v1.DeleteWaterRequest", ["entry_id", "for_member"]),
    ("water.v1.UndoWaterRequest", ["for_member"]),
    ("water.v1.GetTodayRequest", ["for_member"]),
    ("water.v1.GetHistoryRequest", ["for_member"]),
    ("water.v1.GetYearRequest", ["habit", "for_member"]),
    ("water.v1.SetGoalRequest", ["for_member"]),
    ("water.v1.SetUsualCupRequest", ["usual_drink", "for_member"]),
    ("water.v1.GetSettingsRequest", ["for_member"]),
    ("water.v1.SetPrivacyRequest", ["for_member"]),
    ("water.v1.SetTimeZoneRequest", ["time_zone"]),
    ("water.v1.AddCupRequest", ["cup.name", "cup.drink", "for_member"]),
    ("water.v1.RemoveCupRequest", ["name", "for_member"]),
    ("water.v1.ListDrinksRequest", []),
    ("water.v1.AddDrinkRequest", ["drink.name", "drink.icon", "drink.display_name"]),
    ("water.v1.SetDrinkRequest", ["name", "icon", "display_name"]),
    ("water.v1.RemoveDrinkRequest", ["name"]),
    ("water.v1.GetBoardRequest", ["week"]),
    ("water.v1.WatchBoardRequest", []),
    ("water.v1.GetBoardHistoryRequest", []),
    ("water.v1.CreateWallLinkRequest", ["label"]),
    ("water.v1.ListWallLinksRequest", []),
    ("water.v1.RevokeWallLinkRequest", ["id"]),
    ("water.v1.AddTodoRequest", ["item_id", "text", "due", "every", "for_member", "rotate"]),
    ("water.v1.ToggleTodoRequest", ["item_id"]),
    ("water.v1.SetTodoDoneRequest", ["item_id", "due_day", "for_member"]),
    ("water.v1.DeleteTodoRequest", ["item_id"]),
    ("water.v1.MoveTodoRequest", ["item_id"]),
    ("water.v1.ListTodosRequest", []),
    ("water.v1.SkipTodoRequest", ["item_id", "due_day"]),
    ("water.v1.ListTodoHistoryRequest", ["item_id"]),
    ("water.v1.ExportTodosRequest", []),
    (
        "water.v1.ImportTodosRequest",
        [
            "items.item_id", "items.text", "items.added_by", "items.completed_by", "items.due_day", "items.due_time",
            "items.every", "items.assignee", "items.rotation", "items.last_done_day", "history.item_id",
            "history.text", "history.due_day", "history.done_by", "history.turn_of", "history.marked_by",
        ]
    ),
    ("water.v1.AddHabitRequest", ["habit_id", "name", "for_member"]),
    ("water.v1.CheckHabitRequest", ["habit_id", "date", "for_member"]),
    ("water.v1.UncheckHabitRequest", ["habit_id", "date", "for_member"]),
    ("water.v1.DeleteHabitRequest", ["habit_id", "for_member"]),
    ("water.v1.ListHabitWeekRequest", ["week", "for_member"]),
    ("water.v1.ExportRequest", []),
    (
        "water.v1.ImportRequest",
        [
            "history.member.username", "history.member.display_name", "history.member.time_zone",
            "history.member.guardians", "history.entries.made_by",
            "history.settings.time_zone", "history.settings.usual_drink", "history.settings.cups.name",
            "history.settings.cups.drink", "history.entries.entry_id",
            "history.entries.date", "history.entries.drink",
            "history.goals.date",
            "history.habits.habit.habit_id", "history.habits.habit.name", "history.habits.checked_dates",
            "history.excused.date", "history.excused.reason",
            "history.reminders.from", "history.reminders.to", "history.reminders.push_url",
            "history.reminders.push_token",
        ]
    ),
    ("water.v1.ExcuseDaysRequest", ["from_date", "to_date", "reason", "for_member"]),
    ("water.v1.UnexcuseDaysRequest", ["dates", "for_member"]),
    ("water.v1.ExcuseHouseholdRequest", ["from_date", "to_date", "reason"]),
    (
        "water.v1.SetRemindersRequest",
        ["reminders.from", "reminders.to", "reminders.push_url", "reminders.push_token", "for_member", "fields"]
    ),
    ("water.v1.GetRemindersRequest", ["for_member"]),
]

private let cases: [(message: String, field: String)] = rows.flatMap { row in row.fields.map { (row.message, $0) } }

/// Strings that protobuf-c would change without a word, each with what the refusal says.
private let badStrings: [(bytes: [UInt8], says: String)] = [
    (Array("ann\u{0}x".utf8), "U+0000"),
    ([0x6D, 0x69, 0x6C, 0x6B, 0xFF, 0xFE, 0xFD], "UTF-8"),
    ([0xC0, 0x80], "UTF-8"),  // an overlong NUL
    ([0xED, 0xA0, 0x80], "UTF-8"),  // a lone surrogate
]

@Suite("Strict strings at the boundary")
struct StrictStringsTests {
    @Test("every string field of every request has a row, and every row is a string field")
    func everyFieldHasARow() {
        let requests = Set(MethodTable.shared.methods.map(\.requestType) + ["water.v1.RequestEnvelope"])
        #expect(Set(rows.map(\.message)) == requests)
        for row in rows {
            #expect(Set(stringFields(of: row.message)) == Set(row.fields), "\(row.message)")
        }
    }

    @Test("U+0000 or invalid UTF-8 in any string field is INVALID_ARGUMENT naming the field", arguments: cases)
    func refused(message: String, field: String) throws {
        let type = try #require(GeneratedMessages.byProtoName[message])
        for bad in badStrings {
            let bytes = encoding(of: message, path: field, holding: bad.bytes)
            let refusal = try #require(throws: DecodeError.self) { try type.init(serializedBytes: bytes) }
            #expect(refusal.code == .malformed && refusal.field == field)
            let error = WaterError(refusal)
            #expect(error.code == .invalidArgument)
            #expect(error.violations.map(\.field) == [field])
            #expect(error.message.contains(bad.says))
        }
        // The same field with good text decodes, so the refusal is about the text.
        _ = try type.init(serializedBytes: encoding(of: message, path: field, holding: Array("Zoë 💧".utf8)))
    }

    @Test("a method name with a NUL is refused, not looked up as the method before it")
    func methodName() throws {
        let envelope = WaterV1.RequestEnvelope(callID: 7, method: "water.v1.Tracker/GetSettings\u{0}", payload: [])
        // The encoder hands protobuf-c a C string: encode the name by hand.
        var bytes = encoding(of: "water.v1.RequestEnvelope", path: "method", holding: Array(envelope.method.utf8))
        bytes = [0x08, 0x07] + bytes
        let error = try #require(throws: WaterError.self) { try IncomingCall(payload: bytes) }
        #expect(error.code == .invalidArgument && error.violations.map(\.field) == ["method"])
    }
}
