import WaterCodec

/// An error a client can see. It travels in the reply envelope's ``Status``: a canonical gRPC
/// code, one readable sentence, and the request fields at fault.
public struct WaterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The canonical code; ``StatusCode`` is generated from `proto/envelope.proto`.
    public typealias Code = WaterV1.StatusCode

    public var code: Code
    /// One sentence for people that says what went wrong and, where it can, what to do.
    public var message: String
    /// The request fields that failed validation.
    public var violations: [WaterV1.FieldViolation]
    /// What failed beneath, for the server's log (as gRPC Swift's `RPCError.cause`): the disk's
    /// errno, an unexpected error. Never sent: ``status`` leaves it out, so a peer learns only
    /// the code and the message. Not part of equality.
    public var cause: (any Error)?

    public init(
        _ code: Code, _ message: String, violations: [WaterV1.FieldViolation] = [], cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.violations = violations
        self.cause = cause
    }

    /// An INVALID_ARGUMENT error naming one field.
    public static func invalidField(_ field: String, _ description: String) -> WaterError {
        WaterError(
            .invalidArgument, description,
            violations: [WaterV1.FieldViolation(field: field, description: description)])
    }

    public var description: String {
        "\(code.protoName ?? "CODE_\(code.rawValue)"): \(message)"
    }

    public static func == (lhs: WaterError, rhs: WaterError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.violations == rhs.violations
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(violations)
    }
}

extension WaterError {
    /// The error a non-OK status stands for.
    public init(_ status: WaterV1.Status) {
        self.init(status.code, status.message, violations: status.violations)
    }

    /// The status that carries this error to the peer.
    public var status: WaterV1.Status {
        WaterV1.Status(code: code, message: message, violations: violations)
    }
}

extension WaterError {
    /// The status a peer's message that did not decode is refused with: INVALID_ARGUMENT, naming
    /// the field at fault when there is one, or RESOURCE_EXHAUSTED for one over its limits.
    public init(_ error: DecodeError) {
        switch error.code {
        case .tooLarge:
            self.init(.resourceExhausted, error.message)
        default:
            self.init(
                .invalidArgument, error.message,
                violations: error.field.map { [WaterV1.FieldViolation(field: $0, description: error.message)] } ?? [])
        }
    }
}

extension WaterV1.StatusCode: CustomStringConvertible {
    public var description: String { protoName ?? "CODE_\(rawValue)" }

}
