import WaterCore
import WaterStore
import WaterSync

/// What a board reads of one member's archive: their diary without its drinks, their habits
/// and their privacy levels. The account's names and creation come from the accounts, read per build.
struct BoardInputs: Sendable {
    var water: WaterDiary
    var habits: HabitBook
    var privacy: DayHistory<Privacy>
}

/// Each member's ``BoardInputs`` as of a revision of their archive, read again only for a
/// member whose archive changed since: a board built after one member's write reads that
/// member's archive alone, and never loads one dropped idle (unchanged since it was dropped).
/// Owns `entries` and `refreshCount` (each behind its lock).
final class BoardInputsCache: Sendable {
    private let entries = Locked<[UInt64: (revision: ArchiveRevision, inputs: BoardInputs)]>([:])
    private let refreshCount = Locked(0)

    /// Member `id`'s inputs, read from their archive only when it changed; nil when there is no
    /// such archive or it cannot be read (protected).
    func inputs(of id: UInt64, in store: FileArchiveStore) -> BoardInputs? {
        if let cached = entries.withLock({ $0[id] }), cached.revision == store.revision(ofMember: id) {
            return cached.inputs
        }
        guard let archive = store.member(id) else { return nil }
        // Taken before the read: a write in between makes the next build read again.
        let revision = archive.revision
        guard
            let inputs = try? archive.read({
                BoardInputs(water: $0.water.withoutEntries, habits: $0.habits, privacy: $0.privacyHistory)
            })
        else { return nil }
        entries.withLock { $0[id] = (revision, inputs) }
        refreshCount.withLock { $0 += 1 }
        return inputs
    }

    /// How many times a member's inputs were read from their archive (tests).
    var refreshes: Int { refreshCount.withLock { $0 } }
}
