import WaterCore
import WaterStore

/// What a decision on an archive means outside it: whether a board may show it (then the board
/// cache, every live board and Home Assistant hear of it) and which sessions it ends (then
/// their streams end). A login, a plain todo item or a password changes no board.
struct ArchiveEffects: Sendable, Equatable {
    var changesBoard = false
    var endedSessions = EndedSessions()

    init(changesBoard: Bool = false, endedSessions: EndedSessions = EndedSessions()) {
        self.changesBoard = changesBoard
        self.endedSessions = endedSessions
    }

    init<Mutation: ArchiveEffect>(_ mutations: some Sequence<Mutation>) {
        for mutation in mutations { mutation.add(to: &self) }
    }
}

/// A mutation whose effects outside its archive are known.
protocol ArchiveEffect: Sendable {
    func add(to effects: inout ArchiveEffects)
    /// A decision's effects, worked out by each kind of mutation in code of its own: every write
    /// comes this way, and a generic loop over mutations of unknown size would allocate for
    /// each one it steps over (see ``Archive``'s `apply`).
    static func effects(of mutations: Mutations<Self>) -> ArchiveEffects
}

extension MemberMutation: ArchiveEffect {
    /// A member's water, habits and privacy are what boards show.
    func add(to effects: inout ArchiveEffects) {
        effects.changesBoard = true
    }

    static func effects(of mutations: Mutations<Self>) -> ArchiveEffects {
        ArchiveEffects(changesBoard: !mutations.isEmpty)
    }
}

extension TodoMutation: ArchiveEffect {
    /// The board counts chores (done, and due per member); a plain item, done or moved, is on
    /// no board.
    func add(to effects: inout ArchiveEffects) {
        switch self {
        case .added(let item): if item.chore != nil { effects.changesBoard = true }
        // Whether it was a chore is not known here; a board that comes out the same is sent to
        // no one (BoardDigest).
        case .deleted, .occurrenceDone, .occurrenceReopened, .completionImported: effects.changesBoard = true
        case .completionSet, .moved: break
        }
    }

    static func effects(of mutations: Mutations<Self>) -> ArchiveEffects {
        var effects = ArchiveEffects()
        for index in mutations.indices { mutations[index].add(to: &effects) }
        return effects
    }
}

extension AccountMutation: ArchiveEffect {
    static func effects(of mutations: Mutations<Self>) -> ArchiveEffects {
        var effects = ArchiveEffects()
        for index in mutations.indices { mutations[index].add(to: &effects) }
        return effects
    }

    func add(to effects: inout ArchiveEffects) {
        switch self {
        // Who is on the board, by which names, and their zone (which days are theirs).
        case .added, .changed:
            effects.changesBoard = true
        case .removed(let memberID, _):
            effects.changesBoard = true
            effects.endedSessions.removedMembers.append(memberID)
        case .passwordSet(let memberID, _):
            effects.endedSessions.members.append(memberID)
        case .sessionEnded(let digest):
            effects.endedSessions.sessions.append(digest)
        // Reminders are read by the scheduler each minute; nothing on the board shows them.
        case .sessionStarted, .drink, .remindersSet:
            break
        }
    }
}
