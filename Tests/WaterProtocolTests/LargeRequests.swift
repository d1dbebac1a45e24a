import WaterCore
import WaterProtocol
import WaterTestSupport

/// The largest requests a real client sends, to hold the decoding limits against.
enum LargeRequests {
    /// The first part of a ten-year member's Import, as `water-client import` sends it: 4000
    /// entries (its part size), a goal for every day and ten habits each checked every day,
    /// with ids made as water-client makes them.
    static let firstImportPart: WaterV1.ImportRequest = {
        var random = SplitMix(seed: 7)
        let days = 3650
        let firstDay = LocalDate(daysSinceEpoch: Int(RealisticHistory.start / 86_400_000))
        let dates = (0..<days).map { firstDay.adding(days: $0).description }
        func id(at unixMilliseconds: Int64) -> String {
            RecordID.timeOrdered(
                unixMilliseconds: unixMilliseconds, counter: 0, installation: RealisticHistory.installation
            ).description
        }
        let entries = (0..<4000).map { index -> WaterV1.WaterEntry in
            let at = RealisticHistory.start + Int64(index) * 8_640_000 + Int64(random.next() % 1_000_000)
            return WaterV1.WaterEntry(
                entryID: id(at: at), amountMl: [150, 250, 350, 500][index % 4], atUnixMs: at,
                date: dates[Int(at - RealisticHistory.start) / 86_400_000])
        }
        let habits = (0..<10).map { index in
            WaterV1.HabitHistory(
                habit: WaterV1.Habit(
                    habitID: id(at: RealisticHistory.start + Int64(index)), name: "habit \(index)", icon: .book,
                    color: .blue),
                checkedDates: dates)
        }
        return WaterV1.ImportRequest(
            history: WaterV1.MemberHistory(
                settings: WaterV1.Settings(dailyGoalMl: 2000, usualCupMl: 250, timeZone: "Europe/Berlin"),
                entries: entries, goals: dates.map { WaterV1.DailyGoal(date: $0, goalMl: 2000) }, habits: habits))
    }()
}
