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
