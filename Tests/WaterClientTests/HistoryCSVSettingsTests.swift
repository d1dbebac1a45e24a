import Testing
import WaterClient
import WaterProtocol

/// Issue 32, item 22: a CSV export keeps what a JSON one keeps of the settings, and nothing in it
/// runs as a formula when a spreadsheet opens it.
@Suite struct HistoryCSVSettingsTests {
    private let now: Int64 = 1_764_590_400_000

    @Test("named cups, the usual drink and privacy are written and read back")
    func settingsRoundTrip() throws {
        let settings = WaterV1.Settings(
            usualCupMl: 300, usualDrink: "tea",
            cups: [
                WaterV1.Cup(name: "mug", amountMl: 350), WaterV1.Cup(name: "latte", amountMl: 250, drink: "milk"),
            ], privacy: .percent)
        let history = WaterV1.MemberHistory(member: WaterV1.Member(username: "mum"), settings: settings)
        let read = try HistoryCSV.read(HistoryCSV.write([history]), now: now)
        #expect(read.first?.settings == settings, "\(HistoryCSV.write([history]))")
        // Full is what a file without a privacy row means.
        let full = WaterV1.MemberHistory(
            member: WaterV1.Member(username: "mum"), settings: WaterV1.Settings(usualCupMl: 250, privacy: .full))
        #expect(!HistoryCSV.write([full]).contains("privacy"))
    }

    @Test(
        "a text field starting with =, +, -, @, TAB or CR is quoted and marked (OWASP), and read back unchanged",
        arguments: [
            "=HYPERLINK(\"http://evil.example\",\"x\")", "+1 cold", "-flu", "@home", "\tlate", "\rlate", "'=kept",
            "''+twice", "=1+1,2",
        ])
    func formulaInjection(text: String) throws {
        let habit = WaterV1.Habit(
            habitID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d60", name: text, icon: .book, color: .green,
            createdAtUnixMs: 1_764_504_000_000)
        let history = WaterV1.MemberHistory(
            member: WaterV1.Member(username: "mum"), habits: [WaterV1.HabitHistory(habit: habit)],
            excused: [WaterV1.ExcusedDate(date: "2025-11-29", reason: text)])
        let written = HistoryCSV.write([history])
        // No field of any line starts with a character a spreadsheet would run.
        for line in written.split(separator: "\n").dropFirst() {
            for field in line.split(separator: ",", omittingEmptySubsequences: false) {
                #expect(!["=", "+", "-", "@", "\t", "\r"].contains(field.first.map(String.init) ?? ""), "\(line)")
            }
        }
        #expect(written.contains("\"'\(text.prefix(1))"), "\(written)")
        let read = try HistoryCSV.read(written, now: now)
        #expect(read.first?.habits.first?.habit?.name == text)
        #expect(read.first?.excused.first?.reason == text)
    }
}
