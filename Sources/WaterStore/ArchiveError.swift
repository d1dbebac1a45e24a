import WaterSystem

/// Why an archive could not be read or written.
public struct ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// A file fails its checksum, decoding or the domain's checks. The archive is put in
        /// protected mode; nothing overwrites it.
        public static let corrupt = Code(name: "corrupt")
        /// A file says it is in a format version this code does not know. Never guessed at.
        public static let unsupportedVersion = Code(name: "unsupported version")
        /// The disk refused a read, write or sync (EIO, ENOSPC, ...). Retrying later may work.
        public static let ioFailure = Code(name: "I/O failure")
        /// The archive is in protected mode: it could not be read, so writes are refused.
        public static let protected = Code(name: "protected")
        /// A file is larger than any archive this code would write: refused, not loaded.
        public static let tooLarge = Code(name: "too large")
        /// Another process holds the data directory.
        public static let locked = Code(name: "locked")
        /// A file disappeared while it was read: a running server compacted it away. Reading
        /// again finds the files that replaced it.
        public static let vanished = Code(name: "vanished")
        /// The path holds no data directory (no format file), and the caller may not make one
        /// there: `serve` on a mistyped path or a disk not yet mounted.
        public static let notADataDirectory = Code(name: "not a data directory")

        public var description: String { name }
    }

    public var code: Code
    /// What happened and where, for the log and for `water-server check`.
    public var message: String
    /// The file-system call beneath an I/O failure, kept whole so a caller can tell a full
    /// disk (ENOSPC) from a failing one (EIO) without reading the message.
    public var cause: FileSystemError?

    public init(_ code: Code, _ message: String, cause: FileSystemError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { "\(code): \(message)" }
}

extension ArchiveError {
    /// An I/O failure of the file-system call `error`, which stays its cause.
    public init(_ error: FileSystemError) {
        self.init(.ioFailure, error.description, cause: error)
    }
}
