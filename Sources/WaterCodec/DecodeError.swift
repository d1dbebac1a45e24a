/// Why bytes did not decode as a message: the codec's own error, which knows nothing of who sent
/// the bytes. The API's layer carries it to a peer as a status (`WaterError(_:)` in
/// WaterProtocol: INVALID_ARGUMENT or RESOURCE_EXHAUSTED, naming ``field``); the store takes it
/// for corruption.
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal it is; open to additions, like gRPC's `RPCError.Code`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case malformed, tooLarge
        }

        private let value: Value

        /// The bytes are not a valid encoding of the message, or a field breaks a rule (a string
        /// that holds U+0000 or is not UTF-8, a field repeated or nested too often): sending the
        /// same bytes again will not help.
        public static let malformed = Code(value: .malformed)
        /// The message would take more fields or memory than its ``DecodeLimits`` allow: a
        /// smaller one may pass.
        public static let tooLarge = Code(value: .tooLarge)

        public var description: String {
            switch value {
            case .malformed: "malformed"
            case .tooLarge: "too large"
            }
        }
    }

    public var code: Code
    /// One sentence for people that says what went wrong.
    public var message: String
    /// The field at fault, as a path of proto field names (`history.entries.entry_id`); nil when
    /// the fault is the whole message's.
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        "\(code): " + (field.map { "\($0): " } ?? "") + message
    }
}
