import Testing
import WaterCore

@testable import WaterPush

/// The push sender's queue: bounded, and fair between recipients.
@Suite("Push queue")
struct PushQueueTests {
    static func job(for recipient: UInt64, _ text: String = "") -> PushQueue.Job {
        var account = Account(
            id: recipient, username: "m\(recipient)", displayName: "M", role: .member, timeZone: .utc,
            passwordHash: "", createdAtUnixMilliseconds: 0)
        account.reminders.push = .init(url: "https://ntfy.example/t", token: "")
        return PushQueue.Job(
            reminder: Reminder(
                memberID: recipient, username: account.username, displayName: "M", recipient: account, kind: "chore",
                title: "A chore is due", text: text, date: LocalDate(year: 2026, month: 11, day: 30)!),
            target: account.reminders.push!)
    }

    @Test("a recipient holds at most its share; past it, its own reminder is the one dropped")
    func perRecipientCap() {
        var queue = PushQueue(capacity: 8, perRecipient: 3)
        #expect((0..<5).map { _ in queue.add(Self.job(for: 1)) } == [0, 0, 0, 1, 1])
        #expect(queue.add(Self.job(for: 2)) == 0)
        #expect(queue.jobs.map(\.recipient) == [1, 1, 1, 2])
    }

    @Test("a full queue makes room for a recipient holding fewer by dropping the newest of who holds the most")
    func fullQueueIsShared() {
        var queue = PushQueue(capacity: 4, perRecipient: 4)
        for number in 0..<4 { #expect(queue.add(Self.job(for: 1, "\(number)")) == 0) }
        #expect(queue.add(Self.job(for: 2, "a")) == 1)
        #expect(queue.jobs.map(\.reminder.text) == ["0", "1", "2", "a"])
        #expect(queue.add(Self.job(for: 3, "b")) == 1)
        #expect(queue.jobs.map(\.reminder.text) == ["0", "1", "a", "b"])
        // 1 holds two against 2's one: taking one of 1's would only swap who holds more, so
        // the new reminder is the one dropped.
        #expect(queue.add(Self.job(for: 2, "c")) == 1)
        #expect(queue.jobs.map(\.reminder.text) == ["0", "1", "a", "b"])
    }

    @Test("what may start is taken oldest first; retries wait for their time")
    func takeReady() {
        var queue = PushQueue()
        var later = Self.job(for: 1, "later")
        later.notBefore = 100
        _ = queue.add(later)
        _ = queue.add(Self.job(for: 2, "now"))
        #expect(queue.takeReady(at: 50).map(\.reminder.text) == ["now"])
        #expect(queue.nextStart == 100)
        #expect(queue.takeReady(at: 100).map(\.reminder.text) == ["later"])
        #expect(queue.nextStart == nil)
    }
}
