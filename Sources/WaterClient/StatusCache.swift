import FoundationEssentials
import Glibc
import WaterCore
import WaterProtocol

/// What this computer last heard from a server about its member, kept in
/// `$XDG_STATE_HOME/water/servers/<HOST:PORT>/status.json` (0600), one per server: today's
/// figures and drinks, the member's zone and usual cup, their habits and the household's list.
/// `water-client prompt` reads only this (no network), and commands that cannot reach the server
/// use it to find what an id, a habit's name or a list number means. Every reply that carries
/// any of it refreshes it. It is advice, not a record: two commands at once each write it whole,
/// the later one stays, and the next reply from the server puts it right.
public struct StatusCache: Codable, Sendable, Equatable {
    public var server: String
    public var username: String
    public var timeZone: String = ""
    /// When the server last said any of it.
    public var updatedAtUnixMs: Int64 = 0
    /// Today as the server counts it, with today's drinks, newest first.
    public var today: WaterV1.DaySummary?
    public var entries: [WaterV1.WaterEntry] = []
    /// The days `week` or `history` last showed, oldest first.
    public var days: [WaterV1.DaySummary] = []
    public var usualCupMl: Int32 = 0
    /// The member's usual drink and the household's drinks: what `log` logs away from the server,
    /// and what it refuses there. Empty: not heard yet (a cache from before drinks).
    public var usualDrink: String = ""
    public var drinks: [WaterV1.Drink] = []
    /// The member's named cups, as last heard.
    public var cups: [WaterV1.Cup] = []
    public var habits: [WaterV1.Habit] = []
    public var todos: [WaterV1.TodoItem] = []
    /// The list's items in the order each terminal last showed them (newest last, a few):
    /// what the numbers typed there refer to. Optional, so a cache of before still reads.
    public var todoListsShown: [ShownList]?
    /// The week (`YYYY-Www`) of the last current board `board` showed this member here: the
    /// first board of a later week says who won the week before.
    public var boardWeekSeen: String?
    /// Who was ranked above this member on the first board heard on a day, and who is now:
    /// those above now who were not then overtook them today (prompt's `{overtaken}`).
    public var boardToday: BoardToday?

    /// The current week's board as heard on one day of the member's.
    public struct BoardToday: Codable, Sendable, Equatable {
        /// The member's today, `YYYY-MM-DD`.
        public var date: String
        /// The usernames ranked above the member on the day's first board.
        public var firstAhead: [String]
        /// Those ranked above now, username and display name.
        public var ahead: [Member]

        public struct Member: Codable, Sendable, Equatable {
            public var username: String
            public var displayName: String

            enum CodingKeys: String, CodingKey {
                case username
                case displayName = "display_name"
            }
        }

        enum CodingKeys: String, CodingKey {
            case date, ahead
            case firstAhead = "first_ahead"
        }
    }

    /// The list as one terminal showed it.
    public struct ShownList: Codable, Sendable, Equatable {
        /// The terminal's device (`/dev/pts/3`), or empty for none.
        public var terminal: String
        public var itemIDs: [String]

        enum CodingKeys: String, CodingKey {
            case terminal
            case itemIDs = "item_ids"
        }
    }

    public init(server: String, username: String) {
        self.server = server
        self.username = username
    }

    enum CodingKeys: String, CodingKey {
        case server, username, today, entries, days, habits, todos
        case timeZone = "time_zone"
        case updatedAtUnixMs = "updated_at_unix_ms"
        case usualCupMl = "usual_cup_ml"
        case todoListsShown = "todo_lists_shown"
        case usualDrink = "usual_drink"
        case drinks, cups
        case boardWeekSeen = "board_week_seen"
        case boardToday = "board_today"
    }

    /// Reads a cache of any version: a field an older client did not write takes its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        server = try container.decode(String.self, forKey: .server)
        username = try container.decode(String.self, forKey: .username)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone) ?? ""
        updatedAtUnixMs = try container.decodeIfPresent(Int64.self, forKey: .updatedAtUnixMs) ?? 0
        today = try container.decodeIfPresent(WaterV1.DaySummary.self, forKey: .today)
        entries = try container.decodeIfPresent([WaterV1.WaterEntry].self, forKey: .entries) ?? []
        days = try container.decodeIfPresent([WaterV1.DaySummary].self, forKey: .days) ?? []
        usualCupMl = try container.decodeIfPresent(Int32.self, forKey: .usualCupMl) ?? 0
        usualDrink = try container.decodeIfPresent(String.self, forKey: .usualDrink) ?? ""
        drinks = try container.decodeIfPresent([WaterV1.Drink].self, forKey: .drinks) ?? []
        cups = try container.decodeIfPresent([WaterV1.Cup].self, forKey: .cups) ?? []
        habits = try container.decodeIfPresent([WaterV1.Habit].self, forKey: .habits) ?? []
        todos = try container.decodeIfPresent([WaterV1.TodoItem].self, forKey: .todos) ?? []
        todoListsShown = try container.decodeIfPresent([ShownList].self, forKey: .todoListsShown)
        boardWeekSeen = try container.decodeIfPresent(String.self, forKey: .boardWeekSeen)
        boardToday = try container.decodeIfPresent(BoardToday.self, forKey: .boardToday)
    }

    /// Where it is kept for `server` in this environment.
    public static func path(environment: [String: String], server: String) -> String {
        ClientFiles.stateDirectory(environment: environment, server: server) + "/status.json"
    }

    /// Where the one cache of before (for whichever server the last login was to) was kept: read
    /// for its own server until that server's is first saved.
    public static func legacyPath(environment: [String: String]) -> String {
        ClientFiles.stateDirectory(environment: environment) + "/status.json"
    }

    /// The cache at `path` when it is this member's on this server; nil otherwise.
    public static func load(_ path: String, server: String? = nil, username: String? = nil) -> StatusCache? {
        guard let bytes = LocalFile.read(path, limit: 4 << 20),
            let cache = try? JSONDecoder().decode(StatusCache.self, from: Data(bytes)),
            server.map({ $0 == cache.server }) ?? true, username.map({ $0 == cache.username }) ?? true
        else { return nil }
        return cache
    }

    /// Keeps the cache, and beside it the few figures `prompt` prints (``PromptFigures``): today
    /// as `today` gives it, with what waits in the outbox, and how many writes of any kind wait.
    public func save(_ path: String, today: Day, waiting: Int) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return }
        // Atomic, not synced: a cache is rebuilt from the server's next reply anyway.
        try? LocalFile.writeDurably(path, Array(data), syncing: false)
        let figures = PromptFigures(
            date: today.summary.date, amountMl: today.summary.amountMl, goalMl: today.summary.goalMl,
            unsent: waiting, timeZone: timeZone, updatedAtUnixMs: updatedAtUnixMs,
            heardToday: self.today?.date == today.summary.date, heard: self.today != nil,
            overtaken: overtaken(on: today.summary.date))
        try? LocalFile.writeText(PromptFigures.path(besideCache: path), figures.text, syncing: false)
    }

    /// The current week's board from a reply: who is ranked above this member now, and on
    /// the day's first board. A board without the member's days (a past week's) says nothing.
    public mutating func record(board: WaterV1.WeeklyBoard) {
        guard let mine = board.rows.first(where: { $0.username == username }), let date = mine.days.last?.date else {
            return
        }
        let ahead = board.rows.filter { $0.rank < mine.rank }.map {
            BoardToday.Member(username: $0.username, displayName: $0.displayName)
        }
        guard boardToday?.date == date else {
            boardToday = BoardToday(date: date, firstAhead: ahead.map(\.username), ahead: ahead)
            return
        }
        boardToday?.ahead = ahead
    }

    /// The display names of those who overtook this member on `date` (their today): ranked
    /// above now, not on the day's first board.
    public func overtaken(on date: String) -> [String] {
        guard let board = boardToday, board.date == date else { return [] }
        return board.ahead.filter { !board.firstAhead.contains($0.username) }.map(\.displayName)
    }

    /// A day's summary from a reply: today's figures when it is today (or a later day).
    public mutating func record(day: WaterV1.DaySummary?, now: Int64) {
        guard let day, day.date >= (today?.date ?? "") else { return }
        if day.date != today?.date { entries = [] }
        today = day
        updatedAtUnixMs = now
    }

    /// A drink logged or changed: kept among today's when it is on today.
    public mutating func record(entry: WaterV1.WaterEntry, now: Int64) {
        entries.removeAll { $0.entryID == entry.entryID }
        if entry.date == today?.date {
            entries.append(entry)
            entries.sort { $0.atUnixMs > $1.atUnixMs }
        }
        updatedAtUnixMs = now
    }

    /// Everything `GetToday` says.
    public mutating func record(today reply: WaterV1.GetTodayResponse, now: Int64) {
        today = nil
        record(day: reply.day, now: now)
        entries = reply.entries
        usualCupMl = reply.settings?.usualCupMl ?? usualCupMl
        usualDrink = reply.settings?.usualDrink ?? usualDrink
        cups = reply.settings?.cups ?? cups
        if !reply.drinks.isEmpty { drinks = reply.drinks }
    }

    /// What `entry` counts toward the goal: as the server said, or for a drink still waiting
    /// here, at its drink's factor as last heard (an unknown one, or none, as water).
    public func counted(_ entry: WaterV1.WaterEntry) -> Int32 {
        if entry.countedMl != 0 || entry.drink.isEmpty && entry.factorHundredths == 0 {
            return entry.countedMl != 0 ? entry.countedMl : entry.amountMl
        }
        let factor =
            entry.factorHundredths != 0
            ? Int32(clamping: entry.factorHundredths)
            : drinks.first { $0.name == entry.drink }.map { Int32(clamping: $0.factorHundredths) }
                ?? HydrationFactor.water
        return HydrationFactor.counted(millilitres: entry.amountMl, hundredths: factor)
    }

    public mutating func forget(entryID: String) {
        entries.removeAll { $0.entryID == entryID }
    }

    /// The list as `terminal` last showed it, item ids from the top; nil when it never did.
    public func listShown(on terminal: String) -> [String]? {
        todoListsShown?.last { $0.terminal == terminal }?.itemIDs
    }

    /// `items` are what `terminal` shows now (and the list as this computer last heard it).
    public mutating func record(listShown items: [WaterV1.TodoItem], on terminal: String) {
        todos = items
        var lists = (todoListsShown ?? []).filter { $0.terminal != terminal }
        lists.append(ShownList(terminal: terminal, itemIDs: items.map(\.itemID)))
        todoListsShown = Array(lists.suffix(Self.terminalsRemembered))
    }

    /// How many terminals' lists are kept: a few windows at once, not every one ever opened.
    static let terminalsRemembered = 8
}

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

/// What `water-client prompt` prints, kept as a few lines of text beside the cache, so that the
/// prompt reads one small file and decodes no JSON (in a binary this size, Codable's dynamic
/// casts alone cost a millisecond).
public struct PromptFigures: Equatable, Sendable {
    public var date: String
    public var amountMl: Int32
    public var goalMl: Int32
    /// Writes of any kind waiting in the outbox (what `*` says).
    public var unsent: Int
    public var timeZone: String
    public var updatedAtUnixMs: Int64
    /// Whether the server's figures are of that date (not only drinks waiting to be sent).
    public var heardToday: Bool
    /// Whether the server has said anything yet (a new login has not): else prompt shows "?".
    public var heard: Bool
    /// Who overtook the member on the board on `date` (display names, control characters left
    /// out: one line of the file).
    public var overtaken: [String]

    /// The file beside the cache at `path` (in its server's directory).
    public static func path(besideCache path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) + "/prompt"
    }

    var text: String {
        """
        date \(date)
        amount_ml \(amountMl)
        goal_ml \(goalMl)
        unsent \(unsent)
        time_zone \(timeZone)
        updated_at_unix_ms \(updatedAtUnixMs)
        heard_today \(heardToday ? 1 : 0)
        heard \(heard ? 1 : 0)
        overtaken \(overtaken.map { String($0.unicodeScalars.filter { $0.properties.generalCategory != .control && $0 != "\t" }) }.joined(separator: "\t"))

        """
    }

    public init(
        date: String, amountMl: Int32, goalMl: Int32, unsent: Int, timeZone: String, updatedAtUnixMs: Int64,
        heardToday: Bool, heard: Bool, overtaken: [String] = []
    ) {
        self.date = date
        self.amountMl = amountMl
        self.goalMl = goalMl
        self.unsent = unsent
        self.timeZone = timeZone
        self.updatedAtUnixMs = updatedAtUnixMs
        self.heardToday = heardToday
        self.heard = heard
        self.overtaken = overtaken
    }

    public init?(text: String) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let date = fields["date"], let amount = fields["amount_ml"].flatMap({ Int32($0) }),
            let goal = fields["goal_ml"].flatMap({ Int32($0) }), let unsent = fields["unsent"].flatMap({ Int($0) }),
            let updated = fields["updated_at_unix_ms"].flatMap({ Int64($0) })
        else { return nil }
        self.init(
            date: String(date), amountMl: amount, goalMl: goal, unsent: unsent,
            timeZone: String(fields["time_zone"] ?? ""), updatedAtUnixMs: updated,
            heardToday: fields["heard_today"] == "1", heard: fields["heard"] == "1",
            overtaken: (fields["overtaken"] ?? "").split(separator: "\t").map(String.init))
    }
}
