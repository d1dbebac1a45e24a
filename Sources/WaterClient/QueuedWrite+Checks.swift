import WaterCore
import WaterProtocol

extension QueuedWrite {
    /// Refuses what the server would refuse whatever it holds, by the same rules (WaterCore's),
    /// so that a write kept for later is not one that can only come back refused: a drink in
    /// the future or out of range, a habit checked on a day to come, a list item too short or
    /// too long. What depends on the server's records (an id it does not know) is left to it.
    /// - Parameters:
    ///   - now: the moment of the command; `zone`'s day of it is "today".
    /// - Throws: ``WaterError`` INVALID_ARGUMENT naming the field, as the server's refusal does
    ///   (the same exit code, 65).
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
            case .privacy(let request):
                guard request.privacy.isKnown else {
                    throw DomainError.invalid("privacy", "privacy must be full, percent or hidden")
                }
            case .remove, .todoDone:
                break
            }
        } catch {
            let violations = error.field.map { [WaterV1.FieldViolation(field: $0, description: error.message)] } ?? []
            throw WaterError(.invalidArgument, error.message, violations: violations)
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
