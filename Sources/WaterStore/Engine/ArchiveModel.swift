import WaterCore
import WaterZoneInfo

/// What an archive needs to know when it starts empty, and to read its files.
public struct ArchiveContext: Sendable {
    /// The household's time zone: a new member's days belong to it until they choose another.
    public var defaultTimeZone: MemberTimeZone
    /// Where the zones that archives name are looked up.
    public var timeZones: any TimeZoneSource

    public init(defaultTimeZone: MemberTimeZone, timeZones: any TimeZoneSource = ZoneInfo.system) {
        self.defaultTimeZone = defaultTimeZone
        self.timeZones = timeZones
    }
}

/// A domain value kept as an archive: one snapshot and a journal of mutations. The store is
/// generic over it, so member archives and the household's list share every line of the
/// journal, snapshot, recovery and protected-mode machinery.
public protocol ArchiveModel: Sendable {
    associatedtype Mutation: Sendable

    static var kind: ArchiveKind { get }
    /// The snapshot format written now.
    static var snapshotVersion: UInt16 { get }
    /// Every snapshot format that can be read; older ones are migrated on load.
    static var readableSnapshotVersions: ClosedRange<UInt16> { get }

    /// An empty archive.
    init(context: ArchiveContext)

    /// Applies a validated mutation. Never fails: validation happened before it was journaled.
    mutating func apply(_ mutation: Mutation)

    /// The checks run after loading: anything that fails them puts the archive in protected mode.
    var isValid: Bool { get }

    /// The snapshot body (protobuf, before compression).
    func encodeSnapshot(lastSequence: UInt64, journalGeneration: UInt64) -> [UInt8]

    /// Reads a snapshot body of format `version`.
    static func decodeSnapshot(_ body: [UInt8], version: UInt16, context: ArchiveContext)
        throws(ArchiveError) -> (archive: Self, lastSequence: UInt64, journalGeneration: UInt64)

    /// One journal record (an encoded `JournalRecord`).
    static func encodeRecord(_ mutation: Mutation, sequence: UInt64) -> [UInt8]

    static func decodeRecord(_ bytes: ArraySlice<UInt8>, context: ArchiveContext) throws(ArchiveError)
        -> (mutation: Mutation, sequence: UInt64)
}

/// Which archive a file belongs to, so that one is never read as the other.
public enum ArchiveKind: UInt8, Sendable {
    case member = 1
    case household = 2
    case accounts = 3
}
