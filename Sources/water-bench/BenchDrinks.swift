import WaterSync

/// When the benchmark's drinks happen, within a member's caps (100 drinks a day, 10 000 a
/// calendar year, 100 000 in all): 25 a day, every half hour from 08:00 UTC, day after day from
/// 2001-01-01, before the realistic history of the last 5 years. So a load of thousands of logs
/// per member is saved like a family's drinks, not refused after the day's 100th. Each member
/// (the token a load logs with stands for them) continues where the last load left off, so
/// loads run one after another never put more than 25 on one day. The drinks' ids stay
/// time-ordered as a client makes them: only their times are in the past.
enum BenchDrinks {
    static let perDay = 25
    /// 2001-01-01 00:00 UTC.
    static let firstDay: Int64 = 978_307_200_000
    /// How many drinks each member's loads have placed so far.
    private static let placed = Locked<[[UInt8]: Int]>([:])

    /// The times of `count` more drinks of the member whose token is `member`.
    static func times(_ count: Int, for member: [UInt8]) -> [Int64] {
        let first = placed.withLock { placed -> Int in
            defer { placed[member, default: 0] += count }
            return placed[member, default: 0]
        }
        return (first..<first + count).map { drink in
            firstDay + Int64(drink / perDay) * 86_400_000 + 8 * 3_600_000 + Int64(drink % perDay) * 1_800_000
        }
    }
}
