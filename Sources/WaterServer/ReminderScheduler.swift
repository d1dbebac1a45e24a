import Dispatch
import WaterCore
import WaterLog
import WaterSync

/// Sends the reminders due each minute (``BoardFeed/dueReminders(now:)``) to every channel.
///
/// ## Who owns what
///
/// - **``queue``** (serial, its own) wakes a second into each whole minute of the server's
///   clock (`--clock` included), reads the members' durable day totals, and hands what is due
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
        let due = (first...minute).flatMap { feed.dueReminders(now: $0 * 60_000) }
        guard !due.isEmpty else { return }
        for channel in channels { channel.send(due) }
        // What `nudge` hears: a water reminder that went somewhere (a channel the recipient chose).
        for reminder in due where reminder.kind == "water" && reminder.recipient.reminders.hasChannel {
            feed.reminded.reminded(reminder.memberID, on: reminder.date)
        }
        logger.info("reminders sent", ["count": "\(due.count)"])
    }
}
