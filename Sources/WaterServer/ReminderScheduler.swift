import Dispatch
import WaterCore
import WaterLog
import WaterSync

/// Sends the reminders due each minute (``BoardFeed/dueReminders(now:)``) to every channel.
///
/// ## Who owns what
///
/// - **``queue``** (serial, its own) wakes a second into each whole minute of the server's
///   clock (`--clock` included), reads the members' day totals and the chore list once every
///   write the read could show is durable (``BoardFeed/readDurably(_:orElse:)``), and hands what is due
///   to the channels, which send on threads of their own. The event loop never takes part:
///   nothing here waits for it, and it waits for nothing here.
/// - **``lastMinute``** (touched on ``queue`` only; its lock is for the compiler) is the last
///   minute looked at: a timer that fires twice in a minute sends once, one that fired late
///   (or skipped a minute) catches up on the minutes it missed, up to ``catchUpMinutes``, and a
///   clock set back repeats nothing.
final class ReminderScheduler: BoardPublisher {
    private let feed: BoardFeed
    private let channels: [any ReminderChannel]
    private let logger: Logger
    private let queue = DispatchQueue(label: "water.reminders", qos: .utility)
    private let timer: SendableTimer
    private let lastMinute = Locked<Int64>(0)
    let statusChanged = Signal()

    init(feed: BoardFeed, channels: [any ReminderChannel], logger: Logger) {
        self.feed = feed
        self.channels = channels
        self.logger = logger
        timer = SendableTimer(source: DispatchSource.makeTimerSource(queue: queue))
    }

    var statusLine: String? { nil }

    func start() {
        guard !channels.isEmpty else { return }
        let untilNextMinute = 60_000 - Int(feed.now() % 60_000) + 1000
        timer.source.schedule(
            deadline: .now() + .milliseconds(untilNextMinute), repeating: .seconds(60), leeway: .milliseconds(200))
        timer.source.setEventHandler { [weak self] in self?.tick() }
        timer.source.activate()
    }

    func stop() {
        timer.source.cancel()
        queue.sync {}
    }

    /// How many whole minutes a late tick looks back on: a busy or suspended machine sends what
    /// a few missed minutes were due, not an afternoon's.
    static let catchUpMinutes: Int64 = 5

    /// On ``queue``: the reminders of every minute since the last tick, once each.
    private func tick() {
        let minute = feed.now() / 60_000
        let (first, isNew) = lastMinute.withLock { last -> (Int64, Bool) in
            defer { last = max(last, minute) }
            return (max(last + 1, minute - Self.catchUpMinutes + 1), minute > last)
        }
        guard isNew else { return }
        remind(first...minute)
    }

    /// How many times a read of one tick is made again because it saw a write still being
    /// synced, before what it read is taken as it is (a household writing without a pause
    /// would otherwise hold its reminders back for as long).
    static let durableTries = 20

    /// On ``queue``: the reminders of `minutes`, from a read of durable state only: a drink
    /// still being synced (which may yet be rolled back) neither suppresses nor causes one.
    /// A read that saw one is made again once it is settled, for these same minutes: the tick
    /// has moved ``lastMinute`` on, so nothing else would send them.
    private func remind(_ minutes: ClosedRange<Int64>, tries: Int = 1) {
        let read = { minutes.flatMap { self.feed.dueReminders(now: $0 * 60_000) } }
        let due: [Reminder]
        if tries >= Self.durableTries {
            logger.warning("reminders read with writes still being synced", ["tries": "\(tries)"])
            due = read()
        } else {
            let durable = feed.readDurably(read) { [weak self] in
                // Told on the thread that tells of groups (the event loop): handed back at once.
                guard let self else { return }
                queue.async { self.remind(minutes, tries: tries + 1) }
            }
            guard let durable else { return }
            due = durable
        }
        guard !due.isEmpty else { return }
        for channel in channels { channel.send(due) }
        // What `nudge` hears: a water reminder that went somewhere (a channel the recipient chose).
        for reminder in due where reminder.kind == "water" && reminder.recipient.reminders.hasChannel {
            feed.reminded.reminded(reminder.memberID, on: reminder.date)
        }
        logger.info("reminders sent", ["count": "\(due.count)"])
    }
}
