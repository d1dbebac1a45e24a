import Dispatch
import WaterSync
import WaterSystem

/// How the leader makes groups: takes what is queued (within the group's cap), and commits it
/// as one frame of the log and one sync, running queued tasks at their place in the order.
extension GroupCommitter {
    /// Moves everything queued into `scratch` as the group being gathered (swapped, so that
    /// both sides keep their buffers' capacity) and returns its number. Writes over the group's
    /// cap that may wait (``GroupCap``) go back to the queue, ahead of what it holds, for the
    /// next group.
    func take(_ pending: inout Pending, into scratch: inout Scratch) -> UInt64 {
        scratch.records.removeAll(keepingCapacity: true)
        swap(&scratch.records, &pending.records.bytes)
        scratch.work.removeAll(keepingCapacity: true)
        swap(&scratch.work, &pending.work)
        var leftPublished = false
        if scratch.records.count > GroupCap.afterASmallFirstWrite {
            leftPublished = putBack(GroupCap.deferrable(scratch.work.map(\.submission)), &pending, &scratch)
        }
        // Writes put back are in the next group now, and what they applied in memory may be read
        // meanwhile: a read must wait for that group (``lastQueuedGroup``).
        if leftPublished { newestQueued.store(pending.gathering + 1, ordering: .releasing) }
        pending.leadership.took(writes: scratch.work.count, leftPublished: leftPublished)
        defer { pending.gathering += 1 }
        return pending.gathering
    }

    /// Moves the writes at `indices` of the group taken into `scratch` back to the front of the
    /// queue, with their records, for the writer to take next; whether there were any.
    private func putBack(_ indices: [Int], _ pending: inout Pending, _ scratch: inout Scratch) -> Bool {
        guard !indices.isEmpty else { return false }
        var records: [UInt8] = []
        var work: [Work] = []
        for index in indices {
            guard case .write(let item) = scratch.work[index] else { continue }
            let start = records.count
            records += scratch.records[item.bytes]
            work.append(
                .write(
                    CommitItem(
                        target: item.target, epoch: item.epoch, firstSequence: item.firstSequence,
                        recordCount: item.recordCount, bytes: start..<records.count, complete: item.complete)))
        }
        // What was queued meanwhile now starts after the writes put back.
        let shift = records.count
        for index in pending.work.indices {
            guard case .write(let item) = pending.work[index] else { continue }
            pending.work[index] = .write(
                CommitItem(
                    target: item.target, epoch: item.epoch, firstSequence: item.firstSequence,
                    recordCount: item.recordCount,
                    bytes: (item.bytes.lowerBound + shift)..<(item.bytes.upperBound + shift),
                    complete: item.complete))
        }
        pending.records.bytes.insert(contentsOf: records, at: 0)
        pending.work.insert(contentsOf: work, at: 0)
        for index in indices.reversed() { scratch.work.remove(at: index) }
        statistics.withLock { $0.deferredWrites += indices.count }
        return true
    }

    /// Commits the writes taken into `scratch` as groups, running each task at its place in the
    /// order; returns whose writes were not stored (empty, allocating nothing, when all are).
    func run(_ scratch: inout Scratch) -> [ArchiveEpoch] {
        scratch.lost.removeAll(keepingCapacity: true)
        var groupStart = 0
        for index in scratch.work.indices {
            guard case .task(let body) = scratch.work[index] else { continue }
            if groupStart < index { commit(groupStart..<index, &scratch) }
            groupStart = index + 1
            body()
        }
        if groupStart < scratch.work.count {
            commit(groupStart..<scratch.work.count, &scratch)
        }
        // Let go of the archives the group wrote now, not at the next group: an idle archive
        // must be held by nothing but its store to leave memory (``FileArchiveStore/dropIdleMembers()``).
        scratch.work.removeAll(keepingCapacity: true)
        scratch.current.removeAll(keepingCapacity: true)
        scratch.written.removeAll(keepingCapacity: true)
        guard !scratch.lost.isEmpty else { return [] }
        defer { scratch.lost = [] }
        return scratch.lost
    }

    /// `archive`'s writes in `epoch` in this group were not stored (``GroupOutcome``).
    private func lose(_ archive: UInt64, epoch: UInt64, _ scratch: inout Scratch) {
        let lost = ArchiveEpoch(archive: archive, epoch: epoch)
        if !scratch.lost.contains(lost) { scratch.lost.append(lost) }
    }

    /// Commits one group, adding to `scratch.lost` the archives whose writes were not stored: a
    /// write refused for an earlier failure of its archive (stale) loses that archive only, a
    /// failed sync every archive the frame held.
    private func commit(_ items: Range<Int>, _ scratch: inout Scratch) {
        scratch.current.removeAll(keepingCapacity: true)
        for index in items {
            guard case .write(let item) = scratch.work[index] else { continue }
            guard item.target.isCurrent(epoch: item.epoch) else {
                item.complete?(
                    .failure(ArchiveError(.ioFailure, "an earlier write to this archive failed; nothing was saved")))
                lose(item.target.key, epoch: item.epoch, &scratch)
                continue
            }
            scratch.current.append(item)
        }
        scratch.chunks.removeAll(keepingCapacity: true)
        for item in scratch.current where item.recordCount > 0 {
            scratch.chunks.append((item.target.key, item.firstSequence, item.recordCount, item.bytes))
        }

        var outcome: Result<LogPosition?, ArchiveError> = .success(nil)
        if !scratch.chunks.isEmpty {
            scratch.records.withUnsafeBytes { records in
                LogFrame.encode(chunks: scratch.chunks, records: records, into: &scratch.frame)
            }
            do throws(FileSystemError) {
                let end = try log.append(scratch.frame, keys: scratch.chunks.lazy.map(\.key))
                let syncStart = DispatchTime.now().uptimeNanoseconds
                try log.sync()
                scratch.lastSyncNanoseconds = DispatchTime.now().uptimeNanoseconds - syncStart
                syncDurations.record(scratch.lastSyncNanoseconds)
                outcome = .success(end)
            } catch {
                log.rollBack()
                outcome = .failure(ArchiveError(error))
            }
        }
        statistics.withLock {
            $0.groups += 1
            $0.items += items.count
            $0.syncs += scratch.chunks.isEmpty ? 0 : 1
            if case .failure = outcome { $0.failures += 1 }
        }

        // Once per archive, with everything of it the frame holds: a snapshot it starts then
        // stands at the frame's end, so it must hold every record of the archive up to there.
        scratch.written.removeAll(keepingCapacity: true)
        for item in scratch.current where item.recordCount > 0 {
            if let index = scratch.written.firstIndex(where: { $0.target === item.target }) {
                scratch.written[index].last = max(scratch.written[index].last, item.lastSequence)
                scratch.written[index].bytes += item.bytes.count
            } else {
                scratch.written.append((item.target, item.lastSequence, item.bytes.count))
            }
        }
        switch outcome {
        case .success(let end):
            if let end {
                for archive in scratch.written {
                    archive.target.markDurable(through: archive.last, at: end, bytes: archive.bytes)
                }
            }
            for item in scratch.current { item.complete?(.success(())) }
        case .failure(let error):
            // Nothing of the frame is known to be on disk: every archive in it goes back to
            // its durable state, and everything queued on top of that fails with it. A
            // submission with no records fails with them when its archive had any there (it
            // waited for them); another archive's succeeds.
            for archive in scratch.written { archive.target.rollBack(error) }
            for item in scratch.current {
                let failed = scratch.written.contains { $0.target === item.target }
                if failed { lose(item.target.key, epoch: item.epoch, &scratch) }
                item.complete?(failed ? .failure(error) : .success(()))
            }
        }
    }
}
