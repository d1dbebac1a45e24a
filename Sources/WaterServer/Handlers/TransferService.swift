import Dispatch
import WaterCore
import WaterProtocol
import WaterStore

/// Entries per `ExportResponse`, so a chunk stays well under the frame limit (about 60 bytes
/// an entry on the wire).
let exportChunkEntries = 5000

/// `water.v1.Transfer`: a member's whole history out (the household's, for admins) and back in.
struct TransferService: Service {
    let archives: ArchiveAccess
    /// Where exports are encoded, one at a time: years of a household's history take a while,
    /// and the event loop must stay free to serve every other connection.
    let exportQueue: DispatchQueue
    /// Where imports are decoded, checked and committed, one part at a time: a request of a
    /// full frame takes a hundred milliseconds or more, which the event loop must not spend.
    let importQueue: DispatchQueue

    func register(in router: inout Router) {
        router.stream(.member, export)
        router.later(.member, on: importQueue, importHistory)
    }

    func export(_ request: WaterV1.ExportRequest, _ call: CallContext, responder: Responder) throws(WaterError) {
        guard !request.household || call.account.role == .admin else {
            throw WaterError(.permissionDenied, "only an admin may export the whole household")
        }
        let members = request.household ? try archives.read(archives.accounts) { $0.members } : [call.account]
        // A household's history stops going to a session that ended.
        let (streams, id) = (archives.streams, archives.streams.tie(responder, to: call))
        let export = ExportStream(
            members: members, household: request.household, store: archives.store, responder: responder,
            queue: exportQueue, makers: archives.usernames(), finished: { streams.remove(id) })
        exportQueue.async { export.send(from: ExportStream.Position()) }
    }

    /// Adds what the archive does not have yet of an exported history, on the import queue.
    ///
    /// The whole history is first checked against a copy of the archive, outside its lock: a
    /// file holding anything the live calls refuse adds nothing. It is then committed in parts
    /// (``Import/parts(of:)``), each decided against the archive as it is then, so that the
    /// archive's lock, which the event loop takes for every call of this member, is held for
    /// one part's work at a time; the next part is taken on the import queue once the last one
    /// is durable. Importing is idempotent, so a part decided after a write of the member's own
    /// still adds only what is missing.
    func importHistory(
        _ request: WaterV1.ImportRequest, _ call: CallContext, reply: @escaping Reply<WaterV1.ImportResponse>
    ) throws(WaterError) {
        guard let history = request.history else { throw .invalidField("history", "the import holds no history") }
        let snapshot = try archives.read(try archives.own(call)) { $0 }
        let drinks = try archives.read(archives.accounts) { $0.drinks }
        do {
            _ = try Import.mutations(history, into: snapshot, drinks: drinks, now: call.now)
        } catch {
            throw WaterError(refusal: error)
        }
        _ = try Import.reminders(history.reminders, keeping: call.account.reminders)
        commit(
            Import.parts(of: history)[...], call, drinks: drinks, reminders: history.reminders,
            added: WaterV1.ImportResponse(), reply: reply)
    }

    /// Commits the first of `parts`, then (on the import queue) the rest, then the `reminders`.
    private func commit(
        _ parts: ArraySlice<WaterV1.MemberHistory>, _ call: CallContext, drinks: DrinkList,
        reminders: WaterV1.ReminderSettings?, added: WaterV1.ImportResponse,
        reply: @escaping Reply<WaterV1.ImportResponse>
    ) {
        guard let part = parts.first else { return commit(reminders, call, added: added, reply: reply) }
        do throws(WaterError) {
            try archives.commit(
                try archives.own(call),
                { archive in
                    let (mutations, counts) = try Import.mutations(part, into: archive, drinks: drinks, now: call.now)
                    return Decision(mutations, note: counts)
                }, result: { _, counts in counts },
                reply: { [self] outcome in
                    switch outcome {
                    case .success(let counts):
                        importQueue.async {
                            commit(
                                parts.dropFirst(), call, drinks: drinks, reminders: reminders,
                                added: added.adding(counts), reply: reply)
                        }
                    case .failure(let error):
                        reply(.failure(error))
                    }
                })
        } catch {
            reply(.failure(error))
        }
    }
}

extension TransferService {
    /// The reminders of an import, last: they are kept with the account, not in the archive.
    private func commit(
        _ reminders: WaterV1.ReminderSettings?, _ call: CallContext, added: WaterV1.ImportResponse,
        reply: @escaping Reply<WaterV1.ImportResponse>
    ) {
        guard reminders != nil else { return reply(.success(added)) }
        let member = call.account.id
        do throws(WaterError) {
            try archives.commit(
                archives.accounts,
                { book in
                    guard let account = book.accounts[member],
                        let settings = try Import.reminders(reminders, keeping: account.reminders)
                    else { return Decision([], note: false) }
                    return Decision([.remindersSet(memberID: member, settings)], note: true)
                },
                result: { _, set in
                    var added = added
                    added.remindersSet = set
                    return added
                }, reply: reply)
        } catch {
            reply(.failure(error))
        }
    }
}

extension WaterV1.ImportResponse {
    /// Both counts together.
    fileprivate func adding(_ other: Self) -> Self {
        Self(
            entriesAdded: entriesAdded + other.entriesAdded, goalsAdded: goalsAdded + other.goalsAdded,
            habitsAdded: habitsAdded + other.habitsAdded, checkinsAdded: checkinsAdded + other.checkinsAdded,
            excusedAdded: excusedAdded + other.excusedAdded)
    }
}

/// A member's history as `MemberHistory` chunks: the first with the settings, goals and
/// habits, every one with up to ``exportChunkEntries`` entries.
enum Export {
    /// The chunk of entries from `start` on, and where the next chunk starts (nil: this is the
    /// last). Only that chunk's entries are made into messages.
    /// `makers`: usernames by member id, for entries made for the member by someone else and
    /// the member's guardians.
    static func history(
        of account: Account, _ archive: MemberArchive, from start: Int, makers: [UInt64: String] = [:]
    ) -> (WaterV1.MemberHistory, next: Int?) {
        let water = archive.water
        let end = min(start + exportChunkEntries, water.entries.count)
        let next = end < water.entries.count ? end : nil
        let entries = water.entries[start..<end].map { Wire.entry($0, in: water, makers: makers) }
        let member = Wire.member(account, guardians: account.guardians.compactMap { makers[$0] }.sorted())
        guard start == 0 else { return (WaterV1.MemberHistory(member: member, entries: entries), next) }
        let goals = water.datesWithEntries.map {
            WaterV1.DailyGoal(date: $0.description, goalMl: water.goals.goalMillilitres(on: $0))
        }
        let habits = archive.habits.habits.map {
            WaterV1.HabitHistory(habit: Wire.habit($0), checkedDates: $0.checkedDays.sorted().map(\.description))
        }
        var history = WaterV1.MemberHistory(
            member: member, settings: Wire.settings(archive), entries: entries, goals: goals,
            habits: habits,
            excused: water.excused.sorted { $0.key < $1.key }.map {
                WaterV1.ExcusedDate(date: $0.key.description, reason: $0.value)
            })
        history.reminders = reminders(account.reminders)
        return (history, next)
    }

    /// The reminders as an export carries them: never where pushes go (the URL names a topic
    /// anyone who knows it can read, and the token is write-only); nil when that leaves them off.
    static func reminders(_ settings: ReminderSettings) -> WaterV1.ReminderSettings? {
        var wire = ReminderService.wire(settings)
        (wire.pushUrl, wire.pushTokenSet) = ("", false)
        return wire == WaterV1.ReminderSettings() ? nil : wire
    }
}

/// One Export call, sent a chunk at a time on the export queue (its owner): each chunk is made
/// only once the connection has room for it (``Responder/yield(_:whenWritable:)``), so an
/// export nobody reads holds one member's archive (shared with the live one until it changes)
/// and its place in it, never the encoded history. Each member's archive is sent once what its
/// read could show is durable (``GroupCommitter/endStoreRead(_:then:)``).
struct ExportStream: Sendable {
    /// Where the export has got to: a member, and the first entry of its next chunk.
    struct Position: Sendable {
        var member = 0
        var entry = 0
        /// The member's archive as it was when the export reached it.
        var archive: MemberArchive?
    }

    let members: [Account]
    let household: Bool
    let store: FileArchiveStore
    let responder: Responder
    let queue: DispatchQueue
    /// Usernames by member id, for who made an entry for its member.
    let makers: [UInt64: String]
    /// Runs as it finishes by itself (its session's streams need not end it).
    let finished: @Sendable () -> Void

    /// Sends the next chunk from `position` (or ends the stream), and asks for the one after it
    /// once the connection is writable.
    func send(from position: Position) {
        guard position.member < members.count else { return finish(nil) }
        let account = members[position.member]
        guard let archive = position.archive else { return read(account, at: position) }
        let (chunk, next) = Export.history(of: account, archive, from: position.entry, makers: makers)
        yield(
            WaterV1.ExportResponse(history: chunk),
            then: next.map { Position(member: position.member, entry: $0, archive: archive) }
                ?? Position(member: position.member + 1))
    }

    /// Reads the archive of the member at `position` and sends it once every write the read
    /// could have shown is durable (as a read on the read pool waits); a write among them that
    /// was not stored ends the stream with the refusal a reply that showed it gets.
    private func read(_ account: Account, at position: Position) {
        let began = store.committer.beginStoreRead()
        guard let archive = store.member(account.id).flatMap({ try? $0.read({ $0 }) }) else {
            // One member's protected archive does not stop the household's export: it is
            // named, and the others are exported. A member's own export has nothing else.
            guard household else {
                return finish(
                    WaterError(
                        .failedPrecondition,
                        "your archive cannot be read and is protected until an admin repairs it "
                            + "(water-server check shows why)"))
            }
            return yield(
                WaterV1.ExportResponse(
                    unavailable: WaterV1.Member(username: account.username, displayName: account.displayName)),
                then: Position(member: position.member + 1))
        }
        // Told on the thread that tells of groups (maybe the event loop): handed back to the queue.
        store.committer.endStoreRead(began) { [self] stored in
            queue.async {
                guard stored else { return finish(ReplyQueue.refusal) }
                send(from: Position(member: position.member, entry: position.entry, archive: archive))
            }
        }
    }

    private func finish(_ error: WaterError?) {
        finished()
        responder.finish(error)
    }

    private func yield(_ response: WaterV1.ExportResponse, then next: Position) {
        responder.yield(response) { [self] in queue.async { send(from: next) } }
    }
}
