import WaterCore
import WaterProtocol

extension QueuedWrite {
    /// The write in words, as `outbox` and the line that says it was kept show it: "log 250 ml
    /// at 08:00 on Mon 2026-11-30". Times are in `zone`; habits and list items are named as
    /// `cache` (what this computer last heard) knows them, else by their short id. The names and
    /// texts in it are members': a caller printing it on a terminal neutralises it.
    public func words(zone: MemberTimeZone, cache: StatusCache?) -> String {
        func when(_ at: Int64) -> String {
            let date = zone.date(atUnixMilliseconds: at).description
            return "at \(DisplayText.clock(at, zone: zone)) on \(DisplayText.dayName(date) ?? date)"
        }
        func habit(_ id: String) -> String {
            cache?.habits.first { $0.habitID == id }?.name ?? DisplayText.shortID(id)
        }
        switch self {
        case .log(let request):
            return
                "log \(request.amountMl == 0 ? "your usual cup" : "\(request.amountMl) ml")"
                + (request.drink.isEmpty ? "" : " \(request.drink)")
                + (request.forMember.isEmpty ? "" : " for \(request.forMember)") + " \(when(request.atUnixMs))"
        case .edit(let request):
            let amount = request.amountMl == 0 ? "" : " to \(request.amountMl) ml"
            let time = request.atUnixMs == 0 ? "" : " \(when(request.atUnixMs))"
            return "change drink \(DisplayText.shortID(request.entryID))\(amount)\(time)"
        case .remove(let request):
            return "remove drink \(DisplayText.shortID(request.entryID))"
        case .habitCheck(let request):
            return "check \(habit(request.habitID)) on \(request.date)"
        case .habitUncheck(let request):
            return "uncheck \(habit(request.habitID)) on \(request.date)"
        case .todoAdd(let request):
            return "add \"\(request.text)\" to the list"
        case .todoDone(let request):
            let item =
                cache?.todos.first { $0.itemID == request.itemID }.map { "\"\($0.text)\"" }
                ?? DisplayText.shortID(request.itemID)
            let due = request.dueDay.isEmpty ? "" : " (due \(request.dueDay))"
            let member = request.forMember.isEmpty ? "" : " for \(request.forMember)"
            return "mark \(item)\(due) \(request.done ? "done" : "not done")\(member)"
        case .todoSkip(let request):
            let item =
                cache?.todos.first { $0.itemID == request.itemID }.map { "\"\($0.text)\"" }
                ?? DisplayText.shortID(request.itemID)
            return "skip \(item) (due \(request.dueDay))"
        case .excuse(let request):
            let days = request.toDate.isEmpty ? request.fromDate : "\(request.fromDate) to \(request.toDate)"
            let reason = request.reason.isEmpty ? "" : " (\(request.reason))"
            let member = request.forMember.isEmpty ? "" : " for \(request.forMember)"
            return "excuse \(days)\(reason)\(member)"
        case .unexcuse(let request):
            let member = request.forMember.isEmpty ? "" : " for \(request.forMember)"
            return "unexcuse \(request.dates.joined(separator: ", "))\(member)"
        case .privacy(let request):
            let level = Privacy(rawValue: Int(request.privacy.rawValue))?.description ?? "?"
            return "set \(request.forMember.isEmpty ? "your" : "\(request.forMember)'s") privacy to \(level)"
        case .reminders(let request):
            return "set \(request.forMember.isEmpty ? "your" : "\(request.forMember)'s") reminders"
        }
    }
}
