/// How much work a peer's message may ask of the decoder. ``WireCheck`` counts it in one pass
/// over the bytes, a few instructions per field, and refuses a message over a limit before
/// protobuf-c or any Swift code does work per field. Each message is checked on its own: the
/// envelope, then the request in its payload.
///
/// proto/README.md's limits section states the values a client meets.
public struct DecodeLimits: Hashable, Sendable {
    /// Fields in the whole message, nested messages' and unknown ones included. A packed
    /// repeated field counts once, an unpacked one once per element.
    public var maximumFieldCount: Int
    /// Messages nested inside one another, the outermost counting 1. The API's deepest,
    /// `ImportRequest.history.habits.habit`, is 4 deep.
    public var maximumDepth: Int
    /// How often one singular field may occur in one message. proto3 lets a sender repeat one
    /// (the last value wins, submessages merge), which costs protobuf-c a merge per repeat.
    public var maximumSingularOccurrences: Int

    /// Bytes of memory protobuf-c may take in the arena per byte of the message (and 16 KiB
    /// besides): its structs, arrays and strings, and its scan of the fields, 64 bytes per field
    /// while it runs. Real messages take 2 to 8 (a struct, a pointer and a string per entry of
    /// an Import); 16 refuses the bytes that ask for far more (empty submessages by the
    /// thousand), so what a message costs stays a small multiple of its size.
    public var maximumMemoryPerByte: Int

    public init(
        maximumFieldCount: Int, maximumDepth: Int, maximumSingularOccurrences: Int, maximumMemoryPerByte: Int = 16
    ) {
        precondition(
            maximumFieldCount >= 0 && maximumDepth >= 1 && maximumSingularOccurrences >= 1 && maximumMemoryPerByte >= 1)
        self.maximumFieldCount = maximumFieldCount
        self.maximumDepth = maximumDepth
        self.maximumSingularOccurrences = maximumSingularOccurrences
        self.maximumMemoryPerByte = maximumMemoryPerByte
    }

    /// A logged-in member's calls. The largest real request, the first part of an Import
    /// (4000 entries, with every goal and habit check-in of years), has under 70 000 fields.
    public static let request = DecodeLimits(
        maximumFieldCount: 131_072, maximumDepth: 16, maximumSingularOccurrences: 4)

    /// Calls before login (the handshake and login), which have a handful of fields each.
    public static let beforeLogin = DecodeLimits(
        maximumFieldCount: 64, maximumDepth: 4, maximumSingularOccurrences: 4)

    /// No limit but the bytes: for what this program wrote itself (archives) and for a client
    /// reading its server's replies. Strings are checked all the same.
    public static let unlimited = DecodeLimits(
        maximumFieldCount: .max, maximumDepth: .max, maximumSingularOccurrences: .max, maximumMemoryPerByte: .max)

    /// The most protobuf-c may allocate to unpack a message of `length` bytes.
    public func memoryBudget(forInputLength length: Int) -> Int {
        let (perByte, overflow) = maximumMemoryPerByte.multipliedReportingOverflow(by: length)
        let (total, overflowAgain) = perByte.addingReportingOverflow(16 * 1024)
        return overflow || overflowAgain ? .max : total
    }
}
