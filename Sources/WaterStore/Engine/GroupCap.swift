/// How large one group of the shared log may grow, as LevelDB's `BuildBatchGroup` bounds a
/// batch: about 1 MiB, or, when the group's first write is small, that write plus 128 KiB. So
/// the small writes that arrive with a large one (a part of a member's import) do not wait for
/// its bytes to be written and synced: it goes in the next group.
///
/// Only a write whose caller is told through a completion of its own may move to a later group.
/// An event loop's replies wait for the number of the group their writes were queued in
/// (``GroupCommitter/lastQueuedGroup``), so the loop's writes always stay in it, whatever its size.
enum GroupCap {
    static let largest = 1 << 20
    static let afterASmallFirstWrite = 128 << 10

    /// One queued submission, as the cap sees it.
    struct Submission: Equatable {
        /// Its records' bytes.
        var bytes: Int
        /// The archive it writes; nil for a task, which runs between the writes before and after it.
        var archive: ObjectIdentifier?
        /// Whether its caller is told by a completion of its own.
        var hasCompletion: Bool
    }

    /// The positions of the submissions of a group taken whole that go to the next group
    /// instead, in order. A write stays when it is the group's first, fits under the cap, has no
    /// completion, comes before a task (which must run after it), or has a later write of its
    /// archive in the group (an archive's records reach the log in the order they were numbered).
    static func deferrable(_ submissions: [Submission]) -> [Int] {
        guard let first = submissions.firstIndex(where: { $0.archive != nil }) else { return [] }
        let firstBytes = submissions[first].bytes
        let cap = firstBytes <= afterASmallFirstWrite ? firstBytes + afterASmallFirstWrite : largest
        let lastTask = submissions.lastIndex { $0.archive == nil } ?? -1
        var archivesAfter = Set<ObjectIdentifier>()
        var hasLaterWrite = [Bool](repeating: false, count: submissions.count)
        for index in submissions.indices.reversed() {
            guard let archive = submissions[index].archive else { continue }
            hasLaterWrite[index] = !archivesAfter.insert(archive).inserted
        }
        var size = 0
        var deferred: [Int] = []
        for (index, submission) in submissions.enumerated() where submission.archive != nil {
            if index != first, size + submission.bytes > cap, index > lastTask, submission.hasCompletion,
                !hasLaterWrite[index]
            {
                deferred.append(index)
            } else {
                size += submission.bytes
            }
        }
        return deferred
    }
}
