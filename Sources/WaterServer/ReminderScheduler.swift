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
///   minute looked at, so a timer that fires twice in a minute sends once.
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

    /// On ``queue``: the reminders of this minute, once.
    private func tick() {
        let now = feed.now()
        let minute = now / 60_000
        guard
            lastMinute.withLock({ last in
                defer { last = minute }; return last != minute
            })
        else { return }
        let due = feed.dueReminders(now: minute * 60_000)
        guard !due.isEmpty else { return }
        for channel in channels { channel.send(due) }
        for reminder in due {
            feed.reminded.reminded(reminder.memberID, on: reminder.date)
        }
        logger.info("reminders sent", ["count": "\(due.count)"])
    }
}
