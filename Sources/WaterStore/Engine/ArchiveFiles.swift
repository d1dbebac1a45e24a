/// The names of one archive's files in its folder:
///
///     snapshot                      the latest snapshot (SnapshotFile); its records after it are
///                                   in the shared log
///     *.tmp                         a replacement being written; removed on load
///     journal-<generation, 16 hex>  format 1 only (per-archive journals, before the shared log):
///                                   journals; a snapshot folded in every generation up to its own
enum ArchiveFiles {
    static let snapshot = "snapshot"
    static let journalPrefix = "journal-"

    static func journal(generation: UInt64) -> String {
        let hex = String(generation, radix: 16)
        return journalPrefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// The generation of a journal file name, or nil for any other name.
    static func generation(ofJournal name: String) -> UInt64? {
        guard name.hasPrefix(journalPrefix), name.count == journalPrefix.count + 16 else { return nil }
        return UInt64(name.dropFirst(journalPrefix.count), radix: 16)
    }
}
