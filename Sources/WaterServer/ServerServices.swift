import Dispatch
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterSync
import WaterTLS

/// The parts of a running server that handlers share.
public final class ServerServices: Sendable {
    let store: FileArchiveStore
    let hasher: PasswordHasher
    let throttle = LoginThrottle()
    /// Calls answered by method and status, for `/metrics`.
    let calls = CallCounts()
    /// Protocol connections refused, for `/metrics`.
    let refusals = ConnectionRefusals()
    /// Where the kitchen wall listens, if it does (CreateWallLink tells the client).
    let wallAddress = WallAddress()
    let configuration: ServerConfiguration
    let logger: Logger
    /// Where what peers do is logged, at a bounded rate.
    let peerLog: PeerLog
    let boards: BoardBuilder
    let boardHub: BoardHub
    /// Every live stream by its session: they end when it does.
    let sessionStreams: SessionStreams
    /// Whether the clock can be trusted with a write.
    let clock: ClockGuard
    let startedAt: Int64
    /// What every connection's TLS session is made from; nil when serving plaintext.
    let tls: TLSContext?
    /// Where reads too costly for the loop run, in turn by member.
    let reads: ReadPool
    /// The day each member was last reminded (``BoardFeed/reminded``, GetReminders).
    let reminded = RemindedDays()
    /// Where exports are encoded, one at a time.
    let exportQueue = DispatchQueue(label: "water.export", qos: .utility)
    /// Where imports are decoded and decided, one at a time.
    let importQueue: DispatchQueue

    /// - Parameter importQueue: a serial queue of the server's own unless given (tests hold one).
    init(
        store: FileArchiveStore, configuration: ServerConfiguration, logger: Logger, tls: TLSContext? = nil,
        importQueue: DispatchQueue = DispatchQueue(label: "water.import", qos: .utility)
    ) {
        self.importQueue = importQueue
        self.store = store
        self.reads = ReadPool(committer: store.committer)
        self.tls = tls
        self.configuration = configuration
        self.logger = logger
        self.peerLog = PeerLog(logger: logger, limits: configuration.peerLogLimits)
        self.hasher = PasswordHasher(
            strength: configuration.passwordStrength,
            concurrentHashes: configuration.concurrentPasswordHashes,
            maximumPerAddress: configuration.maximumPasswordChecksPerAddress)
        self.boards = BoardBuilder(store: store, householdTimeZone: configuration.householdTimeZone)
        let now: @Sendable () -> Int64 = { UnixTime.nowMilliseconds() + configuration.clockOffsetMilliseconds }
        self.boardHub = BoardHub(boards: boards, now: now)
        self.sessionStreams = SessionStreams(now: now) { digest, now in
            (try? store.accounts.read { $0.session(digest, now: now) }) != nil
        }
        self.clock = ClockGuard(
            now: now, buildTime: configuration.buildTimeUnixMilliseconds, dataDirectory: configuration.dataDirectory,
            zone: configuration.householdTimeZone, logger: logger)
        self.startedAt = UnixTime.nowMilliseconds()
    }

    /// Every service of the API, each made from the parts it needs.
    var api: APIServices { APIServices(server: self) }

    /// The handler of every method.
    func router() -> Router {
        Router(api.all)
    }

    /// The server's now: the system clock, shifted when `--clock` started it elsewhere.
    func now() -> Int64 {
        UnixTime.nowMilliseconds() + configuration.clockOffsetMilliseconds
    }

    /// Who a call's token belongs to.
    func authenticate(_ token: [UInt8], now: Int64) -> Result<Caller, WaterError> {
        token.withUnsafeBytes { authenticate($0, now: now) }
    }

    /// The same, for a token where the request envelope holds it: nothing is allocated.
    func authenticate(_ token: UnsafeRawBufferPointer, now: Int64) -> Result<Caller, WaterError> {
        guard !token.isEmpty else {
            return .failure(WaterError(.unauthenticated, "not logged in: run water-client login"))
        }
        if store.accounts.protection != nil { return .failure(.accountsUnreadable) }
        guard let digest = SessionTokens.digest(of: token),
            let found = try? store.accounts.read({ book -> Result<Caller, WaterError>? in
                guard let session = book.session(digest, now: now), let account = book.accounts[session.memberID] else {
                    return book.removedSession(digest, now: now) == nil ? nil : .failure(.noLongerMember)
                }
                return .success(
                    Caller(
                        account: account, digest: digest, expiresAtUnixMilliseconds: session.expiresAtUnixMilliseconds))
            })
        else {
            return .failure(
                WaterError(.unauthenticated, "your session has expired or was ended: run water-client login"))
        }
        return found
    }
}

/// Builds the household's board from every member's archive, and keeps the last board of
/// each week and order until anything changes (a write anywhere bumps ``changed()``) or the
/// minute turns (days end at midnight in each member's zone).
struct BoardBuilder: Sendable {
    let store: FileArchiveStore
    let householdTimeZone: MemberTimeZone
    let cache: BoardCache

    init(store: FileArchiveStore, householdTimeZone: MemberTimeZone) {
        self.store = store
        self.householdTimeZone = householdTimeZone
        cache = BoardCache(committer: store.committer)
    }

    /// Something that may be on a board changed. The next board read is built anew at once (a
    /// reply that shows a write waits for it to be durable anyway); those who listen hear of
    /// it only once it is durable, and again, on a board built anew, when it was rolled back.
    func changed() {
        cache.generation.withLock { $0 += 1 }
        cache.durable.changed()
    }

    /// Calls `body` after every change, once it is durable (on the thread that tells of it, the
    /// event loop's in a server: it must return quickly).
    func onChange(_ body: @escaping @Sendable () -> Void) {
        cache.changes.listen(body)
    }

    /// The board as it goes on the wire to `viewer` (a username; nil: no one's), computed at
    /// most once per change and minute, and once per viewer only when someone's privacy makes
    /// the viewers' boards differ.
    func wireBoard(week: ISOWeek, order: BoardOrder, viewer: String?, now: Int64) -> WaterV1.WeeklyBoard {
        cached(week: week, order: order, viewer: viewer, now: now).board
    }

    /// `GetBoard`'s reply to `viewer`, encoded as seldom as ``wireBoard(week:order:viewer:now:)``.
    func encodedBoard(week: ISOWeek, order: BoardOrder, viewer: String?, now: Int64) -> Encoded<
        WaterV1.GetBoardResponse
    > {
        cached(week: week, order: order, viewer: viewer, now: now).reply
    }

    private func cached(week: ISOWeek, order: BoardOrder, viewer: String?, now: Int64) -> BoardCache.Entry {
        let shared = BoardCache.Key(week: week, order: order, minute: now / 60_000, viewer: nil)
        let generation = cache.generation.withLock { $0 }
        let base =
            hit(shared, generation)
            ?? {
                let (built, unavailable) = self.board(week: week, order: order, now: now)
                let members = unavailable.map { WaterV1.Member(username: $0.username, displayName: $0.displayName) }
                return keep(
                    BoardCache.Entry(generation: generation, built: built, unavailable: members, viewer: nil, now: now),
                    shared)
            }()
        guard let viewer, !base.built.isSameForEveryone else { return base }
        var key = shared
        key.viewer = viewer
        return hit(key, generation)
            ?? keep(
                BoardCache.Entry(
                    generation: generation, built: base.built, unavailable: base.board.unavailable, viewer: viewer,
                    now: now), key)
    }

    private func hit(_ key: BoardCache.Key, _ generation: UInt64) -> BoardCache.Entry? {
        cache.boards.withLock { $0[key] }.flatMap { $0.generation == generation ? $0 : nil }
    }

    private func keep(_ entry: BoardCache.Entry, _ key: BoardCache.Key) -> BoardCache.Entry {
        cache.boards.withLock { boards in
            if boards.count > 64 { boards.removeAll() }
            boards[key] = entry
        }
        return entry
    }

    /// A board as it goes on the wire to `viewer`: GetBoard's, WatchBoard's and
    /// GetBoardHistory's one path (privacy is applied in ``Wire/board(_:viewer:now:)``).
    static func wire(_ built: WeeklyBoard, unavailable: [WaterV1.Member], viewer: String?, now: Int64)
        -> WaterV1.WeeklyBoard
    {
        var board = Wire.board(built, viewer: viewer, now: now)
        board.unavailable = unavailable
        return board
    }

    /// The boards of the `weeks` weeks before the current one as `viewer` may see them, last
    /// week first, each as GetBoard has it but without the rows' days. Each week's ranking is
    /// kept until anything changes or the minute turns (``BoardCache/pastBoards``); the members
    /// are read at most once for all the weeks missing.
    /// A week before the household's first (no member had joined) is left out.
    func history(weeks: Int, order: BoardOrder, viewer: String?, now: Int64) -> [WaterV1.WeeklyBoard] {
        let generation = cache.generation.withLock { $0 }
        var read: (members: [BoardMember], unavailable: [WaterV1.Member])?
        var week = currentWeek(now: now)
        return (0..<weeks).compactMap { _ in
            week = week.previous
            let key = BoardCache.Key(week: week, order: order, minute: now / 60_000, viewer: nil)
            var past = cache.pastBoards.withLock { $0[key] }
            if past?.generation != generation {
                if read == nil {
                    let (readable, unavailable) = members()
                    read = (
                        readable.map(\.member),
                        unavailable.map { WaterV1.Member(username: $0.username, displayName: $0.displayName) }
                    )
                }
                let built = WeeklyBoard(members: read!.members, week: week, order: order, now: now)
                past = (generation, built, read!.unavailable)
                cache.pastBoards.withLock { boards in
                    if boards.count > 128 { boards.removeAll() }
                    boards[key] = past
                }
            }
            guard !past!.built.standings.isEmpty else { return nil }
            var board = Self.wire(past!.built, unavailable: past!.unavailable, viewer: viewer, now: now)
            for index in board.rows.indices { board.rows[index].days = [] }
            return board
        }
    }

    /// The household's current week.
    func currentWeek(now: Int64) -> ISOWeek {
        ISOWeek(containing: householdTimeZone.date(atUnixMilliseconds: now))
    }

    /// The board for `week`, and the members whose archive cannot be read (protected): they are
    /// not ranked, but named, rather than failing everyone's board or vanishing from it.
    func board(week: ISOWeek, order: BoardOrder, now: Int64) -> (WeeklyBoard, unavailable: [Account]) {
        let (readable, unavailable) = members()
        return (WeeklyBoard(members: readable.map(\.member), week: week, order: order, now: now), unavailable)
    }

    /// Every member as the board sees them, with their account, and the members whose archive
    /// cannot be read (protected).
    func members() -> (readable: [(account: Account, member: BoardMember)], unavailable: [Account]) {
        let accounts = (try? store.accounts.read { $0.members }) ?? []
        var unavailable: [Account] = []
        let readable = accounts.compactMap { account -> (account: Account, member: BoardMember)? in
            guard let inputs = cache.inputs.inputs(of: account.id, in: store) else {
                unavailable.append(account)
                return nil
            }
            return (
                account,
                BoardMember(
                    username: account.username, displayName: account.displayName, water: inputs.water,
                    habits: inputs.habits, createdAtUnixMilliseconds: account.createdAtUnixMilliseconds,
                    absences: account.absences,
                    privacyHistory: inputs.privacy)
            )
        }
        return (withChores(readable, accounts), unavailable)
    }
}

extension BoardBuilder {
    /// `readable` with each member's chores from the household's list (none when it cannot be
    /// read: the water board still shows).
    fileprivate func withChores(_ readable: [(account: Account, member: BoardMember)], _ accounts: [Account])
        -> [(account: Account, member: BoardMember)]
    {
        let excused = Dictionary(
            readable.map {
                (
                    $0.account.id,
                    ChoreHousehold.turnPassing(Set($0.member.water.excused.keys), privacy: $0.member.privacy)
                )
            }
        ) { $1 }
        let zone = householdTimeZone
        let chores =
            (try? store.household.read {
                $0.memberChores(members: Set(accounts.map(\.id)), excused: excused, zone: zone)
            }) ?? [:]
        return readable.map { entry in
            var member = entry.member
            member.chores = chores[entry.account.id] ?? MemberChores()
            return (entry.account, member)
        }
    }
}

/// What ``BoardBuilder`` remembers.
final class BoardCache: Sendable {
    struct Key: Hashable {
        var week: ISOWeek
        var order: BoardOrder
        var minute: Int64
        /// nil: the board everyone gets while it is the same for everyone.
        var viewer: String?
    }

    /// A board built for one key: the ranking, and one viewer's board as a message and as
    /// `GetBoard`'s encoded reply.
    struct Entry {
        var generation: UInt64
        var built: WeeklyBoard
        var board: WaterV1.WeeklyBoard
        var reply: Encoded<WaterV1.GetBoardResponse>

        init(generation: UInt64, built: WeeklyBoard, unavailable: [WaterV1.Member], viewer: String?, now: Int64) {
            self.generation = generation
            self.built = built
            board = BoardBuilder.wire(built, unavailable: unavailable, viewer: viewer, now: now)
            reply = Encoded(WaterV1.GetBoardResponse(board: board))
        }
    }

    let generation = Locked<UInt64>(0)
    let boards = Locked<[Key: Entry]>([:])
    /// Past weeks' rankings (GetBoardHistory's), by week, order and minute, each built in a
    /// generation.
    let pastBoards = Locked<[Key: (generation: UInt64, built: WeeklyBoard, unavailable: [WaterV1.Member])]>([:])
    /// What the boards are built from, member by member.
    let inputs = BoardInputsCache()
    /// Fired once changes are durable, for those who publish boards elsewhere (``HomePublisher``).
    let changes = Signal()
    /// Fires ``changes`` once the writes of a change are durable, or rolled back: then the
    /// boards are built anew, as a group that failed may have been on them.
    let durable: GroupNotice

    init(committer: GroupCommitter) {
        durable = GroupNotice(committer)
        let (generation, changes) = (generation, changes)
        durable.listen { _ in
            generation.withLock { $0 += 1 }
            changes.fire()
        }
    }
}
