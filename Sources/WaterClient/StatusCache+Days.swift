import WaterCore
import WaterProtocol

extension StatusCache {
    /// A day as this computer sees it: the server's figures as last heard, with the drinks still
    /// waiting in the outbox added, those waiting to be changed changed, and those waiting to be
    /// removed taken off.
    public struct Day: Sendable {
        public var summary: WaterV1.DaySummary
        /// The drinks of the day, newest first; `sent` is false for those waiting in the outbox.
        public var entries: [(entry: WaterV1.WaterEntry, sent: Bool)]
        /// How many writes of the day wait in the outbox.
        public var unsent: Int
    }

    /// Today in `zone` at `now`: when the cache is from an earlier day, nothing drunk yet
    /// against the goal last heard.
    public func today(adding queued: [Outbox.Write], zone: MemberTimeZone, now: Int64) -> Day {
        days([zone.date(atUnixMilliseconds: now).description], adding: queued, zone: zone)[0]
    }

    /// The days `dates` ("YYYY-MM-DD", in `zone`) as this computer sees them: each as the server
    /// last said (`today`, else `days`; a day it said nothing of has nothing drunk against the
    /// goal last heard), with the writes waiting in `queued` applied in order, whichever day they
    /// are on: a drink logged for yesterday counts on yesterday, one moved to another day moves.
    /// Only drinks this computer knows (today's, and those waiting) can be changed or removed.
    public func days(_ dates: [String], adding queued: [Outbox.Write], zone: MemberTimeZone) -> [Day] {
        var ledger = DayLedger(cache: self)
        // Writes for another member (for_member) are not the caller's figures.
        for write in queued where !write.request.isForAnotherMember {
            switch write.request {
            case .log(let request):
                let date = zone.date(atUnixMilliseconds: request.atUnixMs).description
                ledger.add(
                    WaterV1.WaterEntry(
                        entryID: request.entryID, amountMl: request.amountMl, atUnixMs: request.atUnixMs, date: date,
                        drink: request.drink))
                ledger.unsent[date, default: 0] += 1
            case .edit(let request):
                guard var entry = ledger.remove(request.entryID) else { continue }
                ledger.unsent[entry.date, default: 0] += 1
                if request.amountMl != 0 {
                    entry.amountMl = request.amountMl
                    entry.countedMl = 0  // counted again when added back, at the entry's factor
                }
                if request.atUnixMs != 0 {
                    entry.atUnixMs = request.atUnixMs
                    entry.date = zone.date(atUnixMilliseconds: request.atUnixMs).description
                }
                ledger.add(entry)
            case .remove(let request):
                guard let entry = ledger.remove(request.entryID) else { continue }
                ledger.unsent[entry.date, default: 0] += 1
            // The member's own excuses waiting here mark their days (no nudge on a sick day).
            case .excuse(let request) where request.forMember.isEmpty:
                guard let from = LocalDate(request.fromDate) else { continue }
                let to = LocalDate(request.toDate) ?? from
                guard from.days(to: to) < WaterDiary.maximumExcusedDays else { continue }
                for date in stride(from: 0, through: from.days(to: to), by: 1) {
                    ledger.excuses[from.adding(days: date).description] = .some(request.reason)
                }
            case .unexcuse(let request) where request.forMember.isEmpty:
                for date in request.dates { ledger.excuses[date] = .some(nil) }
            default:
                continue
            }
        }
        return dates.map(ledger.day)
    }
}

/// The figures of each day while waiting writes are applied to what the server last said.
private struct DayLedger {
    let cache: StatusCache
    /// Drinks this computer knows, by id.
    var entries: [String: (entry: WaterV1.WaterEntry, sent: Bool)] = [:]
    /// What the waiting writes change of each day's amount and count, and how many were made on
    /// it (an edit counts on the day the drink was on).
    var amount: [String: Int32] = [:]
    var count: [String: Int] = [:]
    var unsent: [String: Int] = [:]
    /// Excuses made (a reason) or taken back (nil) by waiting writes, by day.
    var excuses: [String: String?] = [:]

    init(cache: StatusCache) {
        self.cache = cache
        for entry in cache.entries where entry.date == cache.today?.date {
            entries[entry.entryID] = (entry, true)
        }
    }

    /// Adds a waiting drink, counted at its drink's factor as last heard.
    mutating func add(_ entry: WaterV1.WaterEntry) {
        var entry = entry
        entry.countedMl = cache.counted(entry)
        entries[entry.entryID] = (entry, false)
        change(entry.date, amount: entry.countedMl, count: 1)
    }

    /// Takes a known drink off its day; nil when this computer does not know it.
    mutating func remove(_ id: String) -> WaterV1.WaterEntry? {
        guard let (entry, _) = entries.removeValue(forKey: id) else { return nil }
        change(entry.date, amount: -cache.counted(entry), count: -1)
        return entry
    }

    private mutating func change(_ date: String, amount: Int32, count: Int) {
        self.amount[date, default: 0] += amount
        self.count[date, default: 0] += count
    }

    func day(_ date: String) -> StatusCache.Day {
        let known = cache.today?.date == date ? cache.today : cache.days.last { $0.date == date }
        let amount = (known?.amountMl ?? 0) + (self.amount[date] ?? 0)
        let count = Int(known?.count ?? 0) + (self.count[date] ?? 0)
        let goal = known?.goalMl ?? cache.today?.goalMl ?? WaterLimits.defaultDailyGoalMillilitres
        let day = WaterDay(
            date: LocalDate(date) ?? LocalDate(daysSinceEpoch: 0), amountMillilitres: amount, goalMillilitres: goal,
            count: count)
        let summary = WaterV1.DaySummary(
            date: date, amountMl: amount, goalMl: goal, progress: day.progress, percent: UInt32(day.percent),
            remainingMl: day.remainingMillilitres, count: UInt32(max(count, 0)), goalMet: day.isGoalMet,
            excused: excuses[date].map { $0 != nil } ?? known?.excused ?? false,
            excusedReason: excuses[date].map { $0 ?? "" } ?? known?.excusedReason ?? "")
        let shown = entries.values.filter { $0.entry.date == date }.sorted { $0.entry.atUnixMs > $1.entry.atUnixMs }
        return StatusCache.Day(summary: summary, entries: shown, unsent: unsent[date] ?? 0)
    }
}
