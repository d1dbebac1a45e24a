import WaterCore

/// What an archive needs to know when it starts empty, and to read its files.
public struct ArchiveContext: Sendable {
    /// The household's time zone: a new member's days belong to it until they choose another.
    public var defaultTimeZone: MemberTimeZone
    /// Where the zones that archives name are looked up.
    public var timeZones: any TimeZoneSource

    public init(defaultTimeZone: MemberTimeZone, timeZones: any TimeZoneSource) {
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
    /// Every snapshot format that can be read, the newest last: that one is written
    /// (``snapshotVersion``), older ones are migrated on load.
    static var snapshotVersions: ClosedRange<UInt16> { get }

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

    /// One record of the log: `mutation`, numbered.
    static func record(_ mutation: Mutation, sequence: UInt64) -> WaterArchiveV1.JournalRecord

    static func decodeRecord(_ bytes: ArraySlice<UInt8>, context: ArchiveContext) throws(ArchiveError)
        -> (mutation: Mutation, sequence: UInt64)

    /// What `mutation` did, in words, for `repair` to say what it dropped ("a drink of 250 ml
    /// at 08:15 on 2026-12-01"); nil where a record number says enough.
    func describe(_ mutation: Mutation) -> String?
}

extension ArchiveModel {
    public func describe(_ mutation: Mutation) -> String? { nil }

    /// The snapshot format written now: the newest of ``snapshotVersions``.
    public static var snapshotVersion: UInt16 { snapshotVersions.upperBound }
}

extension ArchiveModel {
    /// One record, encoded in an array of its own (tests, tools: the store packs records
    /// straight into the log's pending buffer).
    public static func encodeRecord(_ mutation: Mutation, sequence: UInt64) -> [UInt8] {
        record(mutation, sequence: sequence).serializedBytes()
    }
}

/// Which archive a file belongs to, so that one is never read as the other.
public enum ArchiveKind: UInt8, Sendable {
    case member = 1
    case household = 2
    case accounts = 3
}

/// An archive's name in the shared log: its kind in the top byte, and for a member the id the
/// server gave them.
enum ArchiveKey {
    static let accounts = UInt64(ArchiveKind.accounts.rawValue) << 56
    static let household = UInt64(ArchiveKind.household.rawValue) << 56

    static func member(_ id: UInt64) -> UInt64 {
        UInt64(ArchiveKind.member.rawValue) << 56 | id
    }

    /// The member id in a member archive's key.
    static func memberID(of key: UInt64) -> UInt64 { key & (1 << 56 - 1) }

    /// The archive's folder relative to the data directory, for messages.
    static func folder(_ key: UInt64) -> String {
        switch key {
        case accounts: DataDirectory.accounts
        case household: DataDirectory.household
        default: "\(DataDirectory.users)/\(memberID(of: key))"
        }
    }

    /// The key of an archive folder (`accounts`, `household`, `users/<id>`), or nil.
    static func of(folder: String) -> UInt64? {
        switch folder {
        case DataDirectory.accounts: return accounts
        case DataDirectory.household: return household
        default:
            guard folder.hasPrefix("\(DataDirectory.users)/"),
                let id = UInt64(folder.dropFirst(DataDirectory.users.count + 1))
            else { return nil }
            return member(id)
        }
    }
}
