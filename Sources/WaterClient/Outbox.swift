import Glibc

/// Writes that could not reach the server, kept on this computer until they can.
///
/// One file per write under `$XDG_STATE_HOME/water/outbox/` (else `~/.local/state/...`), 0600,
/// written through a temporary file, synced and renamed, so a crash leaves a whole write or
/// none, and two terminals adding at once never touch the same file. Names start with the
/// moment of queueing, so listing them gives the order they were made in. Sending takes an
/// exclusive lock (``withSendingLock(_:)``): two terminals never send the same write at once.
/// A write is removed only once the server has answered it; sending it again after a crash is
/// safe because every queued request names its record by the id the client chose (a replay
/// changes nothing). What the server refuses moves to `refused/` with its reason; a file that
/// does not read moves to `damaged/`.
public struct Outbox: Sendable {
    /// What a queued write does, as its file names it (``QueuedWrite/kind``).
    public enum Kind: String, Sendable, CaseIterable {
        case log
        case edit
        case remove = "rm"
        case habitCheck = "habit-check"
        case habitUncheck = "habit-uncheck"
        case todoAdd = "todo-add"
        case todoDone = "todo-done"
        case todoUndone = "todo-undone"
        case todoSkip = "todo-skip"
        case excuse
        case unexcuse
        case privacy
        case reminders
    }

    /// One queued write.
    public struct Write: Sendable, Hashable {
        /// The file's name: the order of writes and their identity here.
        public var name: String
        /// The server and member it is for: another login on this computer never sends it.
        public var server: String
        public var username: String
        /// When the member typed the command.
        public var queuedAtUnixMs: Int64
        /// What it does, with its request.
        public var request: QueuedWrite
        /// Why the server refused it, for a refused write.
        public var refusal: String?

        public var kind: Kind { request.kind }
    }

    public let directory: String

    public init(environment: [String: String]) {
        directory = ClientFiles.stateDirectory(environment: environment) + "/outbox"
    }

    private var refusedDirectory: String { "\(directory)/refused" }
    private var damagedDirectory: String { "\(directory)/damaged" }

    /// Keeps a write; synced before this returns.
    @discardableResult
    public func add(_ request: QueuedWrite, server: String, username: String, now: Int64)
        throws(WaterClientError) -> Write
    {
        // Milliseconds first, zero-padded, so names sort in time; then the process and a
        // random tail, so two terminals in the same millisecond never pick the same name.
        let stamp = String(now)
        let name =
            String(repeating: "0", count: max(0, 15 - stamp.count)) + stamp
            + "-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).write"
        let write = Write(
            name: name, server: server, username: username, queuedAtUnixMs: now, request: request)
        try LocalFile.writeDurably("\(directory)/\(name)", Array(Self.encode(write).utf8))
        return write
    }

    /// The writes waiting to be sent, oldest first. A file that does not read is moved to
    /// `damaged/` (nothing is ever deleted unread) and named in `damaged`.
    public func pending() -> (writes: [Write], damaged: [String]) {
        var writes: [Write] = []
        var damaged: [String] = []
        let names = LocalFile.names(in: directory).sorted()
        removeAbandonedTemporaries(names)
        for name in names where name.hasSuffix(".write") {
            if let write = Self.decode(LocalFile.read("\(directory)/\(name)"), name: name) {
                writes.append(write)
            } else {
                LocalFile.makeDirectory(damagedDirectory)
                if rename("\(directory)/\(name)", "\(damagedDirectory)/\(name)") == 0 {
                    damaged.append("\(damagedDirectory)/\(name)")
                }
            }
        }
        if !damaged.isEmpty { LocalFile.syncDirectory(directory) }
        return (writes, damaged)
    }

    /// A process killed while adding a write leaves its temporary file (never a `.write`: the
    /// rename is what makes it one). Those older than ten minutes are no one's any more.
    private func removeAbandonedTemporaries(_ names: [String]) {
        let now = time(nil)
        for name in names where name.contains(".write.tmp-") {
            var info = stat()
            let path = "\(directory)/\(name)"
            if stat(path, &info) == 0, now - info.st_mtim.tv_sec > 600 { unlink(path) }
        }
    }

    /// The writes the server refused, oldest first, each with its reason.
    public func refused() -> [Write] {
        LocalFile.names(in: refusedDirectory).sorted().filter { $0.hasSuffix(".write") }.compactMap {
            Self.decode(LocalFile.read("\(refusedDirectory)/\($0)"), name: $0)
        }
    }

    /// The server has answered `write`: it is done.
    public func sent(_ write: Write) {
        unlink("\(directory)/\(write.name)")
        LocalFile.syncDirectory(directory)
    }

    /// The server refused `write`: kept, with the reason, for `water-client outbox`.
    public func refuse(_ write: Write, reason: String) throws(WaterClientError) {
        var refused = write
        refused.refusal = reason
        try LocalFile.writeDurably("\(refusedDirectory)/\(write.name)", Array(Self.encode(refused).utf8))
        sent(write)
    }

    /// Puts a refused write back in line, where it was.
    public func retry(_ write: Write) throws(WaterClientError) {
        var again = write
        again.refusal = nil
        try LocalFile.writeDurably("\(directory)/\(write.name)", Array(Self.encode(again).utf8))
        drop(write)
    }

    /// Forgets a refused write.
    public func drop(_ write: Write) {
        unlink("\(refusedDirectory)/\(write.name)")
        LocalFile.syncDirectory(refusedDirectory)
    }

    /// Takes back a write not sent yet (`undo` of a drink logged while away).
    public func withdraw(_ write: Write) {
        sent(write)
    }

    /// Runs `body` holding the outbox's lock, which every sender takes: a second terminal waits
    /// here until the first has sent (and removed) what it took.
    public func withSendingLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try LocalFile.withLock("\(directory)/lock", body)
    }

    // MARK: The file format: "key value" lines, with an end line that proves the file whole.

    package static func encode(_ write: Write) -> String {
        var lines = [
            "water-outbox 1", "kind \(write.kind.rawValue)", "server \(write.server)", "username \(write.username)",
            "queued_at_unix_ms \(write.queuedAtUnixMs)", "request \(ClientFiles.hex(write.request.serializedRequest))",
        ]
        if let refusal = write.refusal { lines.append("refused \(oneLine(refusal))") }
        return (lines + ["end", ""]).joined(separator: "\n")
    }

    package static func decode(_ bytes: [UInt8]?, name: String) -> Write? {
        guard let bytes, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "water-outbox 1", lines.contains("end") else { return nil }
        var fields: [String: String] = [:]
        for line in lines {
            // "key value"; the value may be empty: a request of nothing but defaults
            // (`privacy full`) is written "request " with no hex after it.
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        guard let kind = fields["kind"].flatMap(Kind.init(rawValue:)), let server = fields["server"],
            let username = fields["username"], let time = fields["queued_at_unix_ms"].flatMap({ Int64($0) }),
            let bytes = fields["request"].flatMap(ClientFiles.bytes(hex:)),
            let request = QueuedWrite(kind: kind, serializedRequest: bytes)
        else { return nil }
        return Write(
            name: name, server: server, username: username, queuedAtUnixMs: time, request: request,
            refusal: fields["refused"].map(oneLine))
    }

    /// A refusal as one line of the file. Read back the same way, so that a write read from the
    /// file and written again is unchanged: split on "\n" alone, a form feed or U+2028 would
    /// otherwise survive the read and turn into a space on the next write.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
