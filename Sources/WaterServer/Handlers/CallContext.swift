import WaterCore
import WaterLog
import WaterProtocol
import WaterStore

/// Who is calling: resolved from the envelope's token before a handler runs.
struct Caller: Sendable {
    var account: Account
    var digest: TokenDigest
}

/// What a handler gets: the server's parts, the caller and the time of the call.
struct CallContext: Sendable {
    let services: ServerServices
    /// Nil only for methods anyone may call (Handshake, Login).
    let caller: Caller?
    let now: Int64
    let peer: String

    var store: FileArchiveStore { services.store }

    /// The caller, for methods that require one (the router guarantees it).
    var account: Account { caller!.account }

    /// The caller's own archive: never anyone else's, whatever the request says.
    func ownArchive() throws(WaterError) -> Archive<MemberArchive> {
        guard let archive = store.member(account.id) else {
            throw WaterError(.internal, "your archive is missing; ask an admin to run water-server check")
        }
        return archive
    }

    /// Decides on the caller's archive and replies, with `result` of the state after the
    /// change, once the change is durable. The board's watchers hear of it.
    func commitOwn<Value: Sendable>(
        _ decide: (MemberArchive) throws -> [MemberMutation],
        result: (MemberArchive) -> Value,
        reply: @escaping @Sendable (Result<Value, WaterError>) -> Void
    ) {
        let archive: Archive<MemberArchive>
        do {
            archive = try ownArchive()
        } catch {
            return reply(.failure(error))
        }
        let hub = services.boardHub
        commit(archive, decide, result: result) { outcome in
            if case .success = outcome { hub.changed() }
            reply(outcome)
        }
    }

    /// Decides on `archive` and replies once the change is durable. A refusal by `decide`
    /// (a `DomainError` or `WaterError`) and a storage failure reply with the matching status.
    func commit<Model: ArchiveModel, Value: Sendable>(
        _ archive: Archive<Model>,
        _ decide: (Model) throws -> [Model.Mutation],
        result: (Model) -> Value,
        reply: @escaping @Sendable (Result<Value, WaterError>) -> Void
    ) {
        let logger = services.logger
        let boards = services.boards
        do {
            try archive.commit(decide, result: result) { outcome in
                if case .success = outcome { boards.changed() }
                reply(outcome.mapError { WaterError.storage($0, logger: logger) })
            }
        } catch {
            reply(.failure(WaterError(refusal: error, logger: logger)))
        }
    }

    /// Reads `archive`, mapping protection to a clear status.
    func read<Model: ArchiveModel, T>(_ archive: Archive<Model>, _ body: (Model) throws -> T) throws(WaterError) -> T {
        do {
            return try archive.read(body)
        } catch {
            throw WaterError(refusal: error, logger: services.logger)
        }
    }
}

extension WaterError {
    /// Any error a handler's decision or a read can end in, as the client sees it.
    init(refusal error: any Error, logger: Logger) {
        switch error {
        case let error as WaterError: self = error
        case let error as DomainError: self.init(error)
        case let error as ArchiveError: self = .storage(error, logger: logger)
        default:
            logger.error("unexpected error", ["error": "\(error)"])
            self.init(.internal, "the server hit an unexpected error; nothing was changed")
        }
    }

    /// What the client is told when the store fails: the cause goes to the log, never an errno
    /// to the client.
    static func storage(_ error: ArchiveError, logger: Logger) -> WaterError {
        if error.code == .protected {
            return WaterError(
                .failedPrecondition,
                "this archive could not be read and is protected: nothing can be "
                    + "changed until an admin repairs it (water-server check shows why)")
        }
        logger.error("storage failed", ["error": error.description])
        return WaterError(
            .internal,
            "the server could not save this (its disk refused the write), so nothing was "
                + "changed; try again, and tell an admin if it keeps failing")
    }

    /// What every login and every call is told while the accounts archive is protected: the
    /// server cannot check anyone, which is not the caller's fault (never "wrong password").
    static let accountsUnreadable = WaterError(
        .failedPrecondition,
        "the server's accounts cannot be read, so nobody can log in; an admin should run "
            + "water-server check on the server (and then water-server repair --accounts)")
}
