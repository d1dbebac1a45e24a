import WaterCore

/// The reminders the push sender holds before their transfers start, and the retries waiting
/// for their time: at most ``capacity``, and a fair share of them for each recipient, so a
/// recipient whose reminders come by the hundred (a flood of chores, an endpoint that fails
/// every try) cannot keep anyone else's out.
///
/// A recipient may hold at most ``perRecipient``. When the queue is full, a reminder for a
/// recipient holding fewer than the recipient who holds the most takes the place of that one's
/// newest; otherwise it is the one dropped. A value: the sender keeps it behind its lock.
struct PushQueue: Sendable {
    static let capacity = 64
    static let perRecipient = 16

    /// One POST to make, and when.
    struct Job: Sendable {
        var reminder: Reminder
        var target: ReminderSettings.PushTarget
        var attempt = 0
        /// `DispatchTime.now().uptimeNanoseconds` it may start at.
        var notBefore: UInt64 = 0

        var recipient: UInt64 { reminder.recipient.id }
    }

    private(set) var jobs: [Job] = []

    let capacity: Int
    let perRecipient: Int

    init(capacity: Int = Self.capacity, perRecipient: Int = Self.perRecipient) {
        (self.capacity, self.perRecipient) = (capacity, perRecipient)
    }

    /// Adds `job`, or makes room for it; returns how many were dropped (it, or the one whose
    /// place it took): 0 or 1.
    mutating func add(_ job: Job) -> Int {
        let held = jobs.count { $0.recipient == job.recipient }
        guard held < perRecipient else { return 1 }
        guard jobs.count >= capacity else {
            jobs.append(job)
            return 0
        }
        var counts: [UInt64: Int] = [:]
        for waiting in jobs { counts[waiting.recipient, default: 0] += 1 }
        guard let (most, count) = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }),
            count > held + 1, let newest = jobs.lastIndex(where: { $0.recipient == most })
        else { return 1 }
        jobs.remove(at: newest)
        jobs.append(job)
        return 1
    }

    /// Takes the jobs that may start at `now`, oldest first.
    mutating func takeReady(at now: UInt64) -> [Job] {
        let ready = jobs.filter { $0.notBefore <= now }
        jobs.removeAll { $0.notBefore <= now }
        return ready
    }

    /// When the next job waiting may start; nil: none waits.
    var nextStart: UInt64? { jobs.map(\.notBefore).min() }

    /// Empties the queue; returns how many it held.
    mutating func removeAll() -> Int {
        defer { jobs.removeAll() }
        return jobs.count
    }
}
