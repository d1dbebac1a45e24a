import WaterCore
import WaterLog
import WaterStore

/// The household's board as a publisher beside the API sees it (Home Assistant's, in
/// WaterHome): told of a change only once it is durable (and again when a failed sync rolled it
/// back), and read as durable state only. `Server` hands one to each ``BoardPublisher`` it makes.
public struct BoardFeed: Sendable {
    let boards: BoardBuilder
    /// Where a publisher that sends reminders says it did (GetReminders reads it).
    public let reminded: RemindedDays
    private let clock: @Sendable () -> Int64
    /// The kitchen wall's links (WaterWall asks; nil: no link opens anything).
    private let wallLinks: WallLinkGate?
    private let metricsSource: MetricsSource?
    /// Where a publisher that delivers (reminders, MQTT messages) counts what it did.
    public let deliveries: DeliveryCounts
    private let wallAddress: WallAddress?

    init(
        boards: BoardBuilder, reminded: RemindedDays = RemindedDays(), wallLinks: WallLinkGate? = nil,
        metrics: MetricsSource? = nil, deliveries: DeliveryCounts = DeliveryCounts(), wallAddress: WallAddress? = nil,
        now: @escaping @Sendable () -> Int64
    ) {
        self.wallAddress = wallAddress
        self.boards = boards
        self.reminded = reminded
        self.deliveries = deliveries
        self.wallLinks = wallLinks
        self.metricsSource = metrics
        self.clock = now
    }

    /// Whether the wall link `token` opens the page for a request from `address`; a wrong one
    /// counts against the address as a wrong password does.
    public func admitsWallLink(_ token: String, from address: String) -> WallLinkAdmission {
        wallLinks?.admit(token, from: address) ?? .refused
    }

    /// The wall listens: `scheme` (`https`, or `http` on loopback) on `port`, which the answer
    /// to CreateWallLink tells the client.
    public func wallListening(scheme: String, port: UInt16) {
        wallAddress?.set(scheme: scheme, port: port)
    }

    /// A request to the wall from `address` that asked for nothing there: counted against the
    /// address as a wrong link, so a peer cannot ask again and again for free.
    public func wallMiss(from address: String) -> WallLinkAdmission {
        wallLinks.map { $0.miss(from: address, now: $0.now()) } ?? .refused
    }

    /// The server's figures (Prometheus text) for the wall's `/metrics`: no member's data.
    public func metrics() -> MetricsText {
        metricsSource?.text() ?? MetricsText()
    }

    /// Whether `token` is still a link (a live stream asks again, and ends once it is revoked).
    public func isWallLinkOpen(_ token: String) -> Bool {
        wallLinks?.isOpen(token) ?? false
    }

    /// The reminders due at `now`, whole minute by whole minute (``ReminderRule``), for every
    /// member whose settings ask for them. It reads the board's inputs and the chore list as
    /// they are: the scheduler calls it inside ``readDurably(_:orElse:)``, so that a write still
    /// being synced is never what decides.
    public func dueReminders(now: Int64) -> [Reminder] {
        let members = boards.members().readable
        guard members.contains(where: { !$0.account.reminders.isOff }) else { return [] }
        let accounts = Dictionary(members.map { ($0.account.id, $0.account) }) { first, _ in first }
        let water = members.flatMap { account, member in
            ReminderRule.due(
                for: account, water: member.water, usualCupMillilitres: member.water.usualCupMillilitres,
                accounts: accounts, now: now)
        }
        guard members.contains(where: { $0.account.reminders.chores }) else { return water }
        let zone = boards.householdTimeZone
        let household = ChoreHousehold(
            today: zone.date(atUnixMilliseconds: now), now: now, members: Set(accounts.keys),
            excused: Dictionary(
                members.map {
                    (
                        $0.account.id,
                        ChoreHousehold.turnPassing(Set($0.member.water.excused.keys), privacy: $0.member.privacy)
                    )
                }
            ) { first, _ in first })
        guard let list = try? boards.store.household.read({ $0 }) else { return water }
        return water + ReminderRule.choresDue(in: list, household: household, zone: zone, accounts: accounts, now: now)
    }

    /// The server's now, in Unix milliseconds (shifted when `--clock` started it elsewhere).
    public func now() -> Int64 {
        clock()
    }

    /// Calls `body` after every change of the board, once it is durable or rolled back (on the
    /// thread that tells of it, the event loop's: it must only hand its work on).
    public func onChange(_ body: @escaping @Sendable () -> Void) {
        boards.onChange(body)
    }

    /// Every member as the board sees them, with their account, and the members whose archive
    /// cannot be read (protected).
    public func members() -> (readable: [(account: Account, member: BoardMember)], unavailable: [Account]) {
        boards.members()
    }

    /// The household's current week.
    public func currentWeek(now: Int64) -> ISOWeek {
        boards.currentWeek(now: now)
    }

    /// What `read` makes, when every write it could have seen was durable; nil when it saw one
    /// still being synced (which may yet be rolled back): then `retry` runs once that is settled.
    public func readDurably<Value>(_ read: () -> Value, orElse retry: @escaping @Sendable () -> Void) -> Value? {
        let committer = boards.store.committer
        let started = committer.beginDurableRead()
        let value = read()
        return committer.endDurableRead(started, orElse: retry) ? value : nil
    }
}

/// Something the server runs beside the API that shows the board elsewhere: the Home Assistant
/// publisher (WaterHome), which `water-server serve --mqtt` puts in
/// ``ServerConfiguration/boardPublishers``. Made once the store is open, started with the
/// server, stopped before the store closes.
public protocol BoardPublisher: AnyObject, Sendable {
    /// Starts publishing (on threads of its own) and listening to the feed it was made with.
    func start()
    /// Stops publishing; nothing is published after it returns.
    func stop()
    /// Its line in `water-server status`'s file (`mqtt connected 127.0.0.1:1883`), as `key value`;
    /// nil for none.
    var statusLine: String? { get }
    /// Fired when ``statusLine`` changed, so the status file is written at once.
    var statusChanged: Signal { get }
}

/// Something the server runs beside the API that sends reminders (``BoardFeed/dueReminders(now:)``),
/// each by its own channel: Home Assistant's publisher (MQTT), the push sender (ntfy).
public protocol ReminderChannel: Sendable {
    /// Sends those of `reminders` whose recipient chose this channel, off the caller's thread;
    /// returns without waiting for any of them.
    func send(_ reminders: [Reminder])
    /// Stops sending, waiting a bounded time for what it runs to end: the server calls it once
    /// no more reminders come (for ``ServerConfiguration/reminderChannels``; a publisher that is a
    /// channel too is stopped as a publisher).
    func stop()
}

/// What makes a ``BoardPublisher`` from the server's feed: a closure that
/// ``ServerConfiguration/boardPublishers`` holds until the server opens its store.
/// - Throws: what the publisher refuses in its settings; `Server.init` throws it on.
public typealias BoardPublisherMaker = @Sendable (BoardFeed, Logger) throws -> any BoardPublisher
