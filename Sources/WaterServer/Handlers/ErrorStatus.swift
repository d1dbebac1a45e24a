import Glibc
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore

extension WaterError {
    /// Any error a handler's decision or a read can end in, as the client sees it. A failure of
    /// the server's own rides along as the ``cause``, which the connection logs with the call.
    init(refusal error: any Error) {
        switch error {
        case let error as WaterError: self = error
        case let error as DomainError: self.init(error)
        case let error as ArchiveError: self = .storage(error)
        default: self.init(.internal, "the server hit an unexpected error; nothing was changed", cause: error)
        }
    }

    /// What the client is told when the store fails: the cause goes to the log, never an errno
    /// to the client. A full disk is said as such, since that is what an admin must fix.
    static func storage(_ error: ArchiveError) -> WaterError {
        if error.code == .protected {
            return WaterError(
                .failedPrecondition,
                "this archive could not be read and is protected: nothing can be "
                    + "changed until an admin repairs it (water-server check shows why)", cause: error)
        }
        let refused = error.cause?.errno == ENOSPC ? "its disk is full" : "its disk refused the write"
        return WaterError(
            .internal,
            "the server could not save this (\(refused)), so nothing was "
                + "changed; try again, and tell an admin if it keeps failing", cause: error)
    }

    /// What every login and every call is told while the accounts archive is protected: the
    /// server cannot check anyone, which is not the caller's fault (never "wrong password").
    static let accountsUnreadable = WaterError(
        .failedPrecondition,
        "the server's accounts cannot be read, so nobody can log in; an admin should run "
            + "water-server check on the server (and then water-server repair --accounts)")

    /// What a call with a session of a removed member is told: the token is known, its member is
    /// no longer one (PERMISSION_DENIED), which an expired session (UNAUTHENTICATED) is not.
    static let noLongerMember = WaterError(
        .permissionDenied,
        "you are no longer a member of this household: an admin removed you (and can bring you back with "
            + "water-client member restore; then log in again)")
}

extension WaterError {
    /// A `time_zone` this server has no zoneinfo for, quoted as every peer text is (bounded).
    static func unknownTimeZone(_ name: String) -> WaterError {
        .invalidField(
            "time_zone", "\(quotedPeerText(name)) is not a time zone this server knows (try Europe/Berlin)")
    }

    /// A request field that is not a UUID.
    static func badID(_ field: String, _ text: String) -> WaterError {
        .invalidField(
            field, "an id must be a UUID like 0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e, got \(quotedPeerText(text))")
    }
}

/// A request's id field as a ``RecordID``.
func recordID(_ text: String, field: String) throws(WaterError) -> RecordID {
    guard let id = RecordID(text) else { throw WaterError.badID(field, text) }
    return id
}
