import WaterCore
import WaterProtocol

extension QueuedWrite {
    /// Refuses what the server would refuse whatever it holds, by the same rules (WaterCore's),
    /// so that a write kept for later is not one that can only come back refused: a drink in
    /// the future or out of range, a habit checked on a day to come, a list item too short or
    /// too long. What depends on the server's records (an id it does not know) is left to it.
    /// - Parameters:
    ///   - now: the moment of the command; `zone`'s day of it is "today".
    /// - Throws: ``WaterError``, the very status the server's refusal carries (the one mapping,
    ///   `WaterError(DomainError)`), naming the field: INVALID_ARGUMENT for a value, exit code 65.
    public func check(now: Int64, zone: MemberTimeZone) throws(WaterError) {
        do throws(DomainError) {
            switch self {
            case .log(let request):
                try Self.checkDrink(amountMl: request.amountMl, atUnixMs: request.atUnixMs, now: now)
            case .edit(let request):
                try Self.checkDrink(amountMl: request.amountMl, atUnixMs: request.atUnixMs, now: now)
            case .habitCheck(let request):
                try Self.checkHabitDay(request.date, now: now, zone: zone)
            case .habitUncheck(let request):
                try Self.checkHabitDay(request.date, now: now, zone: zone)
            case .todoAdd(let request):
                _ = try SharedText.todoText.checked(request.text)
                // The members named are the server's to know; how many, and each once, are not.
                let rotation = request.rotate.map { name in UInt64(request.rotate.firstIndex(of: name)! + 1) }
                _ = try Chore.validated(
                    due: request.due, every: request.every, assignee: request.forMember.isEmpty ? nil : 0,
                    rotation: rotation, today: zone.date(atUnixMilliseconds: now))
            case .todoDone(let request):
                try Self.checkDueDay(request.dueDay)
            case .todoSkip(let request):
                try Self.checkDueDay(request.dueDay)
            case .excuse(let request):
                try Self.checkExcuse(request, now: now, zone: zone)
            case .unexcuse(let request):
                let today = zone.date(atUnixMilliseconds: now)
                _ = try WaterDiary(timeZone: zone).validateUnexcuse(
                    request.dates.compactMap(LocalDate.init), today: today)
            case .privacy(let request):
                guard request.privacy.isKnown else {
                    throw DomainError.invalid("privacy", "privacy must be full, percent or hidden")
                }
            case .reminders(let request):
                // The named fields alone: the rest are the server's, unknown here.
                let wire = try WaterV1.ReminderSettings().applying(
                    request.reminders ?? WaterV1.ReminderSettings(), fields: request.fields)
                _ = try ReminderSettings(
                    every: Int(min(wire.everyMinutes, 100_000)), from: wire.from, to: wire.to, chores: wire.chores,
                    mqtt: wire.mqtt, pushURL: wire.pushUrl, pushToken: wire.pushToken)
            case .remove:
                break
            }
        } catch {
            throw WaterError(error)
        }
    }

    /// The days and reason by the server's rules; whether 14 in some 28 are already excused is
    /// the server's to say (this computer does not know every excused day).
    private static func checkExcuse(_ request: WaterV1.ExcuseDaysRequest, now: Int64, zone: MemberTimeZone)
        throws(DomainError)
    {
        guard let from = LocalDate(request.fromDate) else { return }
        let to = LocalDate(request.toDate) ?? from
        guard from <= to, from.days(to: to) < WaterDiary.maximumExcusedDays else { return }
        let dates = (0...from.days(to: to)).map { from.adding(days: $0) }
        _ = try WaterDiary(timeZone: zone).validateExcuse(
            dates, reason: request.reason, today: zone.date(atUnixMilliseconds: now))
    }

    /// A chore's occurrence, as the server reads it (empty: the one due now).
    private static func checkDueDay(_ text: String) throws(DomainError) {
        guard text.isEmpty || LocalDate(text) != nil else {
            throw DomainError.invalid("due_day", "a due day is YYYY-MM-DD, got \(text)")
        }
    }

    /// 0 is "the usual cup" and "now" on the wire, which the server fills in.
    private static func checkDrink(amountMl: Int32, atUnixMs: Int64, now: Int64) throws(DomainError) {
        if amountMl != 0 { try WaterDiary.check(amount: amountMl) }
        if atUnixMs != 0 { try WaterDiary.check(time: atUnixMs, now: now) }
    }

    /// An empty date is today; one that does not read is the server's to refuse.
    private static func checkHabitDay(_ text: String, now: Int64, zone: MemberTimeZone) throws(DomainError) {
        guard let date = LocalDate(text) else { return }
        try HabitBook.check(date: date, today: zone.date(atUnixMilliseconds: now))
    }
}
