import WaterCore
import WaterProtocol

/// Domain values as the messages of `proto/`.
enum Wire {
    static func day(_ day: WaterDay) -> WaterV1.DaySummary {
        WaterV1.DaySummary(
            date: day.date.description, amountMl: day.amountMillilitres, goalMl: day.goalMillilitres,
            progress: day.progress, percent: UInt32(day.percent), remainingMl: day.remainingMillilitres,
            count: UInt32(day.count), goalMet: day.isGoalMet)
    }

    static func entry(_ entry: WaterEntry, in water: WaterDiary) -> WaterV1.WaterEntry {
        WaterV1.WaterEntry(
            entryID: entry.id.description, amountMl: entry.amountMillilitres,
            atUnixMs: entry.unixMilliseconds, date: water.date(of: entry).description)
    }

    static func settings(_ water: WaterDiary) -> WaterV1.Settings {
        WaterV1.Settings(
            dailyGoalMl: water.dailyGoalMillilitres, usualCupMl: water.usualCupMillilitres,
            quickCupsMl: water.quickCupsMillilitres, timeZone: water.timeZone.identifier)
    }

    static func member(_ account: Account) -> WaterV1.Member {
        WaterV1.Member(
            memberID: account.id, username: account.username, displayName: account.displayName,
            role: account.role == .admin ? .admin : .member, timeZone: account.timeZone.identifier)
    }

    static func board(_ board: WeeklyBoard, now: Int64) -> WaterV1.WeeklyBoard {
        WaterV1.WeeklyBoard(
            week: board.week.description, startsOn: board.week.monday.description,
            order: board.order == .total ? .total : .progress,
            rows: board.standings.map { standing in
                WaterV1.BoardRow(
                    rank: UInt32(standing.rank), username: standing.username,
                    displayName: standing.displayName, totalMl: standing.totalMillilitres,
                    daysMet: UInt32(standing.daysMet), averageProgress: standing.averageProgress,
                    averagePercent: UInt32(standing.averagePercent), streakDays: UInt32(standing.streakDays),
                    habitCheckins: UInt32(standing.habitCheckIns), days: standing.days.map(day))
            },
            generatedAtUnixMs: now)
    }
}

extension WaterError {
    /// A domain rule's refusal, with the field it names.
    init(_ error: DomainError) {
        let code: WaterV1.StatusCode =
            switch error.kind {
            case .invalid: .invalidArgument
            case .notFound: .notFound
            case .conflict: .alreadyExists
            }
        let violations = error.field.map { [WaterV1.FieldViolation(field: $0, description: error.message)] } ?? []
        self.init(code, error.field.map { "\($0) \(error.message)" } ?? error.message, violations: violations)
    }

    /// A request field that is not a UUID.
    static func badID(_ field: String, _ text: String) -> WaterError {
        .invalidField(field, "must be a UUID like 0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e, got \"\(text.prefix(40))\"")
    }
}

/// A request's id field as a ``RecordID``.
func recordID(_ text: String, field: String) throws(WaterError) -> RecordID {
    guard let id = RecordID(text) else { throw WaterError.badID(field, text) }
    return id
}
