import WaterCore
import WaterProtocol

/// Domain values as the messages of `proto/`.
enum Wire {
    static func day(_ day: WaterDay) -> WaterV1.DaySummary {
        WaterV1.DaySummary(
            date: day.date.description, amountMl: day.amountMillilitres, goalMl: day.goalMillilitres,
            progress: day.progress, percent: UInt32(day.percent), remainingMl: day.remainingMillilitres,
            count: UInt32(day.count), goalMet: day.isGoalMet, rawMl: day.rawMillilitres, excused: day.isExcused,
            excusedReason: day.excuse ?? "")
    }

    /// The water streak as of `today`.
    static func streak(_ water: WaterDiary, today: LocalDate) -> WaterV1.Streak {
        WaterV1.Streak(
            currentDays: UInt32(water.streak(endingOn: today, today: today)), bestDays: UInt32(water.bestStreak))
    }

    /// A day of GetYear's water year.
    /// `amountsHidden`: a `percent` member's day as others get it, no millilitres.
    static func yearDay(_ day: WaterDay, future: Bool, amountsHidden: Bool = false) -> WaterV1.YearDay {
        WaterV1.YearDay(
            date: day.date.description, amountMl: amountsHidden ? 0 : day.amountMillilitres,
            goalMl: amountsHidden ? 0 : day.goalMillilitres, percent: UInt32(day.percent), goalMet: day.isGoalMet,
            future: future, excused: day.isExcused,
            notAMember: day.excuse.map(Membership.isMembershipReason) ?? false)
    }

    /// `text` is the id as the request gave it: when already canonical (lowercase, as clients
    /// send it) the reply carries that string again instead of making another.
    /// `makers`: usernames by member id, for who made an entry for its owner
    /// (``ArchiveAccess/makers(of:)``).
    static func entry(
        _ entry: WaterEntry, in water: WaterDiary, text: String? = nil, makers: [UInt64: String] = [:]
    ) -> WaterV1.WaterEntry {
        let canonical = text.flatMap { text in text.utf8.contains { (0x41...0x46).contains($0) } ? nil : text }
        return WaterV1.WaterEntry(
            entryID: canonical ?? entry.id.description, amountMl: entry.amountMillilitres,
            atUnixMs: entry.unixMilliseconds, date: water.date(of: entry).description, drink: entry.drink,
            factorHundredths: UInt32(entry.factorHundredths), countedMl: entry.countedMillilitres,
            madeBy: entry.madeBy == 0 ? "" : maker(entry.madeBy, makers))
    }

    /// Who made something (a drink for its owner, a todo item, its completion), by name: removed
    /// members keep theirs (``ArchiveAccess/usernames()``), so only an id no account ever had
    /// reads as a former member.
    static func maker(_ id: UInt64, _ usernames: [UInt64: String]) -> String {
        usernames[id] ?? "a former member"
    }

    static func drinks(_ list: DrinkList) -> [WaterV1.Drink] {
        list.drinks.map {
            WaterV1.Drink(
                name: $0.name, factorHundredths: UInt32($0.factorHundredths), icon: $0.icon, displayName: $0.displayName
            )
        }
    }

    static func settings(_ archive: MemberArchive) -> WaterV1.Settings {
        let water = archive.water
        return WaterV1.Settings(
            dailyGoalMl: water.dailyGoalMillilitres, usualCupMl: water.usualCupMillilitres,
            quickCupsMl: water.quickCupsMillilitres, timeZone: water.timeZone.identifier, usualDrink: water.usualDrink,
            cups: water.cups.map { WaterV1.Cup(name: $0.name, amountMl: $0.amountMillilitres, drink: $0.drink ?? "") },
            privacy: privacy(archive.privacy))
    }

    static func privacy(_ level: Privacy) -> WaterV1.Privacy {
        WaterV1.Privacy(rawValue: Int32(level.rawValue))
    }

    /// A request's level, refusing a value this version does not know (`field` names it).
    static func privacy(_ wire: WaterV1.Privacy, field: String) throws(WaterError) -> Privacy {
        guard let level = Privacy(rawValue: Int(wire.rawValue)) else {
            throw WaterError.invalidField(field, "privacy must be PRIVACY_FULL, PRIVACY_PERCENT or PRIVACY_HIDDEN")
        }
        return level
    }

    /// `guardians`: their usernames (``AccountBook/guardianNames(of:)``).
    static func member(_ account: Account, guardians: [String] = []) -> WaterV1.Member {
        WaterV1.Member(
            memberID: account.id, username: account.username, displayName: account.displayName,
            role: account.role == .admin ? .admin : .member, timeZone: account.timeZone.identifier,
            child: account.isChild, guardians: guardians)
    }

    /// A member as the household's book has them, guardians named.
    static func member(_ account: Account, in book: AccountBook) -> WaterV1.Member {
        member(account, guardians: book.guardianNames(of: account))
    }

    /// The board as `viewer` (a username; nil: no one's, as the wall) may see it. This is the
    /// one place privacy is applied to what leaves the server (``WeeklyBoard/view(for:)``):
    /// every reply with other members' rows is made here, so a redacted figure is never on
    /// the wire, not merely hidden by the client.
    static func board(_ board: WeeklyBoard, viewer: String?, now: Int64) -> WaterV1.WeeklyBoard {
        let own = board.standings.first { $0.username == viewer }
        return WaterV1.WeeklyBoard(
            week: board.week.description, startsOn: board.week.monday.description,
            order: order(board.order), rows: board.view(for: viewer).map(row),
            // The minute, not the instant: boards are built again after any member's write, a
            // hidden or percent member's too, so the instant would time their drinks.
            generatedAtUnixMs: now - now % 60_000, viewerPrivacy: privacy(own?.privacyNow ?? .full))
    }

    private static func row(_ row: BoardViewRow) -> WaterV1.BoardRow {
        let standing = row.standing
        // Its place is the finished week's; nothing else of a member who has hidden since.
        guard !row.hiddenSince else {
            return WaterV1.BoardRow(rank: UInt32(standing.rank), amountsHidden: true, hiddenSince: true)
        }
        return WaterV1.BoardRow(
            rank: UInt32(standing.rank), username: standing.username, displayName: standing.displayName,
            totalMl: row.amountsHidden ? 0 : standing.totalMillilitres, daysMet: UInt32(standing.daysMet),
            averageProgress: row.amountsHidden ? Double(standing.averagePercent) / 100 : standing.averageProgress,
            averagePercent: UInt32(standing.averagePercent),
            streakDays: UInt32(standing.streakDays), habitCheckins: UInt32(standing.habitCheckIns),
            days: standing.days.map { row.amountsHidden ? percentOnly($0) : day($0) },
            excusedDays: UInt32(standing.excusedDays), bestStreakDays: UInt32(standing.bestStreakDays),
            allExcused: standing.allExcused, choresDone: UInt32(standing.choresDone),
            choresDue: UInt32(standing.choresDue), onlyYouSeeThis: row.onlyYouSeeThis, amountsHidden: row.amountsHidden)
    }

    static func order(_ order: BoardOrder) -> WaterV1.BoardOrder {
        switch order {
        case .progress: .progress
        case .total: .total
        case .chores: .chores
        }
    }

    /// A day of a `percent` member as others get it: the truncated percent and nothing finer
    /// (the exact progress times a known goal is the millilitres), no entry count, and whether
    /// it was excused but not why (unless they were not a member then).
    private static func percentOnly(_ day: WaterDay) -> WaterV1.DaySummary {
        WaterV1.DaySummary(
            date: day.date.description, progress: Double(day.percent) / 100, percent: UInt32(day.percent),
            goalMet: day.isGoalMet, excused: day.isExcused,
            // Not a reason of theirs: when they joined or were away is on everyone's board.
            excusedReason: day.excuse.flatMap { Membership.isMembershipReason($0) ? $0 : nil } ?? "")
    }
}
