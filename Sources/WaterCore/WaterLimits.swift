/// The water diary's ranges and defaults, from the WaterDiary seed (DESIGN.md section 4), and
/// the caps on how many drinks a member keeps. The archive's other caps are beside what they
/// count: ``HabitBook/maximumCount``, ``NamedCup/maximumCount``, ``WaterDiary/maximumExcusedDays``
/// and ``WaterDiary/earliestDate`` (before which nothing is logged, checked, excused or set).
public enum WaterLimits {
    /// One entry's amount.
    public static let amountMillilitres: ClosedRange<Int32> = 1...2000
    /// The daily goal.
    public static let dailyGoalMillilitres: ClosedRange<Int32> = 500...10_000
    public static let defaultDailyGoalMillilitres: Int32 = 2000
    /// The usual cup, which `water-client log` without an amount records.
    public static let usualCupMillilitres: ClosedRange<Int32> = 1...2000
    public static let defaultUsualCupMillilitres: Int32 = 250
    /// The cups every member is offered, besides their usual one.
    public static let standardCupsMillilitres: [Int32] = [150, 250, 350]

    // MARK: What one member's archive holds at most
    //
    // A member's archive is held whole in memory, and a household's ten of them share a 1 GB
    // Raspberry Pi with the system. These caps are far above what a family logs and bound what
    // a member (or a file they import) can make the server hold. What one drink costs:
    //
    //   WaterEntry    56 bytes: id 16, amount 4, factor 4, time 8, drink 16 (a String of at
    //                 most 15 bytes is held inline), made_by 8
    //   indexes        8 bytes: its position in `byID` and in `byTime` (Int32 each)
    //   days          under 1 byte: a day's total (8 + 12 bytes, a dictionary at most 3/4
    //                 full) is shared by its drinks, and there are at most ~9 800 days since
    //                 2000, the earliest a drink may be
    //
    // 64 bytes a drink once loaded, which the real server shows: 100 000 drinks loaded after
    // a restart take 6.4 MB (README.md, "Limits"). Right after they are written it holds more:
    // two states of an archive changed since its last snapshot (what callers read, and what is
    // durable), arrays grown by doubling, and what an import's parts left to malloc; measured,
    // 34 MB right after importing 100 000. So the cap in all costs a member 6.4 MB at rest and
    // about 34 MB at worst, and a household of ten 64 MB and 340 MB.
    //
    // Only new writes are held to them: an archive over a cap (written before the caps, or
    // moved over one by a change of time zone) loads whole, and only what would add to the
    // day, year or archive that is over is refused.

    /// Drinks on one day of the member's time zone: a glass every ten minutes of sixteen
    /// waking hours. Keeps a day's list (`day`, `history --entries`) one short reply.
    public static let maximumEntriesPerDay = 100
    /// Drinks in one calendar year of the member's time zone: 27 a day, every day of the year.
    public static let maximumEntriesPerYear = 10_000
    /// Drinks in all: 10 a day for every day from 2000 (the earliest a drink may be) to 2027,
    /// or ten years at the yearly cap.
    public static let maximumEntries = 100_000

    /// The quick cups: 150, 250, 350 and the usual cup, de-duplicated and sorted.
    public static func quickCupsMillilitres(usualCup: Int32) -> [Int32] {
        Array(Set(standardCupsMillilitres + [usualCup])).sorted()
    }
}
