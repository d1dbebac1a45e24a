import WaterCore
import WaterProtocol
import WaterStore

/// How handlers reach the archives: a decision is applied and journaled, the reply waits until
/// it is durable, and every refusal and storage failure becomes the status a client is
/// promised. A decision that changes a board is told to the boards (``BoardBuilder/changed()``,
/// which every live board and Home Assistant hear); one that ends sessions ends their streams
/// (``SessionStreams``) before its reply. No write is made while the server's clock is behind.
///
/// Two ways in, as on ``Archive``: ``commit(_:_:result:reply:)`` for a reply that waits for its
/// own sync, ``commitReturning(for:_:_:result:)`` for one the event loop sends after its turn's.
/// The caller names the archive: ``own(_:)``, ``archive(of:)``, ``accounts``, ``household``.
struct ArchiveAccess: Sendable {
    let store: FileArchiveStore
    let boards: BoardBuilder
    let streams: SessionStreams
    let clock: ClockGuard

    var accounts: Archive<AccountBook> { store.accounts }
    var household: Archive<TodoList> { store.household }

    /// The caller's own archive: never anyone else's, whatever the request says.
    func own(_ call: CallContext) throws(WaterError) -> Archive<MemberArchive> {
        guard let archive = store.member(call.account.id) else {
            throw WaterError(.internal, "your archive is missing; ask an admin to run water-server check")
        }
        return archive
    }

    /// Decides on `archive` and replies with `result` of the state after the change once it is
    /// durable; the boards hear of a change to them then, and the streams of the sessions it
    /// ended end, before the reply goes.
    /// - Throws: the refusal of `decide` (a `DomainError` or `WaterError`), the archive's
    ///   protection or the clock's, before anything is written.
    func commit<Model: ArchiveModel, Note, Value: Sendable>(
        _ archive: Archive<Model>,
        _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value,
        reply: @escaping Reply<Value>
    ) throws(WaterError) where Model.Mutation: ArchiveEffect {
        let (boards, streams) = (self.boards, self.streams)
        try clock.admitWrite()
        var effects = ArchiveEffects()
        do {
            try archive.commit(
                { model in
                    let decision = try decide(model)
                    effects = Model.Mutation.effects(of: decision.mutations)
                    return decision
                },
                // The value made as the decision is applied carries its effects to the completion.
                result: { model, note in (result(model, note), effects) },
                completion: { outcome in
                    switch outcome {
                    case .success((_, let effects)):
                        if effects.changesBoard { boards.changed() }
                        streams.end(effects.endedSessions)
                    case .failure:
                        // Rolled back: a board built from it meanwhile (cached for GetBoard) is
                        // built again; the listeners hear of the rollback as of any change.
                        boards.changed()
                    }
                    reply(outcome.map { $0.0 }.mapError { WaterError.storage($0) })
                })
        } catch {
            throw WaterError(refusal: error)
        }
    }

    /// Decides on `archive` and returns `result` of the state after it, for a reply the event
    /// loop sends after its turn's commit (``Archive/commitReturning(_:result:)``); the group
    /// the write was queued in, with the archive's epoch, is recorded in `call`'s
    /// ``CallContext/writes``, so the reply is refused only if that group loses this write. What the decision changes is told as
    /// ``commit(_:_:result:reply:)`` tells it.
    /// - Throws: the refusal, before anything is written; a storage failure when the write
    ///   committed on this thread and failed.
    func commitReturning<Model: ArchiveModel, Note, Value>(
        for call: CallContext, _ archive: Archive<Model>, _ decide: (Model) throws -> Decision<Model.Mutation, Note>,
        result: (Model, Note) -> Value
    ) throws(WaterError) -> Value where Model.Mutation: ArchiveEffect {
        try clock.admitWrite()
        var effects = ArchiveEffects()
        do {
            let committed = try archive.commitReturning(
                { model in
                    let decision = try decide(model)
                    effects = Model.Mutation.effects(of: decision.mutations)
                    return decision
                }, result: result)
            call.writes?.queued(committed.written, in: committed.group)
            if effects.changesBoard { boards.changed() }
            streams.end(effects.endedSessions)
            return committed.value
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
