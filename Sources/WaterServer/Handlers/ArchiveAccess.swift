import WaterCore
import WaterLog
import WaterProtocol
import WaterStore

/// How handlers reach the archives: a decision is applied and journaled, the reply waits until
/// it is durable, and every refusal and storage failure becomes the status a client is
/// promised. The boards hear of every durable change. No write is made while the server's
/// clock is behind.
struct ArchiveAccess: Sendable {
    let store: FileArchiveStore
    let boards: BoardBuilder
    let hub: BoardHub
    let clock: ClockGuard
    let logger: Logger

    var accounts: Archive<AccountBook> { store.accounts }
    var household: Archive<TodoList> { store.household }

    /// The caller's own archive: never anyone else's, whatever the request says.
    func own(_ call: CallContext) throws(WaterError) -> Archive<MemberArchive> {
        guard let archive = store.member(call.account.id) else {
            throw WaterError(.internal, "your archive is missing; ask an admin to run water-server check")
        }
        return archive
    }

    /// Decides on the caller's archive; the live boards hear of the change.
    /// - Throws: the refusal, before anything is written.
    func commitOwn<Note, Value: Sendable>(
        _ call: CallContext,
        _ decide: (MemberArchive) throws -> Decision<MemberMutation, Note>,
        result: (MemberArchive, Note) -> Value,
        reply: @escaping Reply<Value>
    ) throws(WaterError) {
        let hub = self.hub
        try commit(try own(call), decide, result: result) { outcome in
            if case .success = outcome { hub.changed() }
            reply(outcome)
        }
    }

    /// Decides on `archive` and replies with `result` of the state after the change once it is
    /// durable.
    /// - Throws: the refusal of `decide` (a `DomainError` or `WaterError`), the archive's
    ///   protection or the clock's, before anything is written.
    func commit<Model: ArchiveModel, Note, Value: Sendable>(
        _ archive: Archive<Model>,
        _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value,
        reply: @escaping Reply<Value>
    ) throws(WaterError) {
        let boards = self.boards
        try clock.admitWrite()
        do {
            try archive.commit(decide, result: result) { outcome in
                if case .success = outcome { boards.changed() }
                reply(outcome.mapError { WaterError.storage($0) })
            }
        } catch {
            throw WaterError(refusal: error)
        }
    }

    /// Decides on the caller's archive and returns `result` of the state after it, for a reply
    /// the event loop sends after its turn's commit (``Archive/commitReturning(_:result:)``).
    /// - Throws: the refusal, before anything is written; a storage failure when the write
    ///   committed on this thread and failed.
    func commitOwnReturning<Note, Value>(
        _ call: CallContext, _ decide: (MemberArchive) throws -> Decision<MemberMutation, Note>,
        result: (MemberArchive, Note) -> Value
    ) throws(WaterError) -> Value {
        let value = try commitReturning(try own(call), decide, result: result)
        hub.changed()
        return value
    }

    /// ``commitOwnReturning(_:_:result:)`` for any archive.
    func commitReturning<Model: ArchiveModel, Note, Value>(
        _ archive: Archive<Model>, _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value
    ) throws(WaterError) -> Value {
        try clock.admitWrite()
        do {
            let value = try archive.commitReturning(decide, result: result)
            boards.changed()
            return value
        } catch {
            throw WaterError(refusal: error)
        }
    }

    /// Reads `archive`, mapping protection to a clear status.
    func read<Model: ArchiveModel, T>(_ archive: Archive<Model>, _ body: (Model) throws -> T) throws(WaterError) -> T {
        do {
            return try archive.read(body)
        } catch {
            throw WaterError(refusal: error)
        }
    }
}
