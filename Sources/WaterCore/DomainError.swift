/// A request the domain rules refuse. `WaterError(_:)` (WaterProtocol) turns it into the
/// matching status code, for every program alike; the message is written for the person who
/// typed the command.
public struct DomainError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The request is wrong whatever the state (INVALID_ARGUMENT).
        case invalid
        /// It names something that does not exist (NOT_FOUND).
        case notFound
        /// It conflicts with what exists (ALREADY_EXISTS).
        case conflict
        /// What it adds to is at its limit, or the household's state forbids it (its last
        /// admin): something must change first (FAILED_PRECONDITION).
        case full
    }

    public var kind: Kind
    /// The request field at fault, as named in the proto (`amount_ml`), when there is one.
    public var field: String?
    public var message: String

    public init(_ kind: Kind, field: String? = nil, _ message: String) {
        self.kind = kind
        self.field = field
        self.message = message
    }

    /// An invalid value of one field.
    public static func invalid(_ field: String, _ message: String) -> DomainError {
        DomainError(.invalid, field: field, message)
    }

    public var description: String { message }
}
