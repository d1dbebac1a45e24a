import WaterCore
import WaterSystem
import WaterZoneInfo

@testable import WaterStore

/// A data directory of format 1 (a journal per archive, before the shared log), written as the
/// code of that format wrote it, with its own encoders (``JournalFile``, the legacy snapshot):
/// what a household upgrading finds on its disk.
struct LegacyDirectory {
    /// Every archive's mutations, in the order they were journaled.
    var members: [UInt64: [MemberMutation]] = [:]
    var household: [TodoMutation] = []
    /// What the archives hold once every mutation is applied.
    var expected = Expected()

    /// The writes of `steps`, applied as a server would have.
    init(steps: [Step]) {
        for step in steps {
            if let member = step.member {
                var model = expected.members[member] ?? MemberArchive(timeZone: .utc)
                let mutations = step.mutations(on: model, at: step.now)
                for mutation in mutations { model.apply(mutation) }
                expected.members[member] = model
                members[member, default: []] += mutations
            } else {
                let mutations = step.mutations(on: expected.household, at: step.now)
                for mutation in mutations { expected.household.apply(mutation) }
                household += mutations
            }
        }
    }

    /// Writes the directory at `path`: for each archive, a snapshot of its first records and a
    /// journal of the rest (two records a frame, the last one unsealed), and the format file
    /// saying 1.
    func write(at path: String, fileSystem: any FileSystem) throws {
        for folder in ["", "/accounts", "/household", "/users"] {
            try fileSystem.createDirectory(path + folder, mode: 0o700)
        }
        try Self.archive(AccountBook.self, [], at: "\(path)/accounts", fileSystem)
        try Self.archive(TodoList.self, household, at: "\(path)/household", fileSystem)
        for (id, mutations) in members {
            try fileSystem.createDirectory("\(path)/users/\(id)", mode: 0o700)
            try Self.archive(MemberArchive.self, mutations, at: "\(path)/users/\(id)", fileSystem)
        }
        try fileSystem.syncDirectory("\(path)/users")
        try fileSystem.replaceFile("\(path)/format", with: Array("water-data 1\n".utf8), mode: 0o600)
        try fileSystem.syncDirectory(path)
    }

    private static func archive<Model: ArchiveModel>(
        _ type: Model.Type, _ mutations: [Model.Mutation], at directory: String, _ fileSystem: any FileSystem
    ) throws {
        let folded = mutations.count / 2
        var model = Model(context: ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system))
        for mutation in mutations.prefix(folded) { model.apply(mutation) }
        let body = model.encodeSnapshot(lastSequence: UInt64(folded), journalGeneration: 1)
        try fileSystem.replaceFile(
            "\(directory)/snapshot",
            with: SnapshotFile.encodeLegacy(body: body, version: Model.snapshotVersion, kind: Model.kind),
            mode: 0o600)
        let length = 64 * 1024
        var journal = JournalFile.segment(kind: Model.kind, generation: 2, startsAfter: UInt64(folded), length: length)
        var offset = JournalFile.headerLength
        let records = mutations.enumerated().dropFirst(folded).map {
            Model.encodeRecord($0.element, sequence: UInt64($0.offset + 1))
        }
        for start in stride(from: 0, to: records.count, by: 2) {
            let frame = JournalFile.frame(records: Array(records[start..<min(start + 2, records.count)]))
            journal.replaceSubrange(offset..<(offset + frame.count), with: frame)
            offset += frame.count
        }
        try fileSystem.replaceFile("\(directory)/\(ArchiveFiles.journal(generation: 2))", with: journal, mode: 0o600)
    }
}
