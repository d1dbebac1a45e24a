import WaterSync

/// Who waits to hear that the writes queued so far are durable, or failed: everyone who hears
/// of a write besides its reply (the live boards, Home Assistant) hears through here, so never
/// before the write is on disk, and hears again when its group failed and was rolled back.
///
/// Groups finish in order, and one party tells of them (``finished(_:succeeded:)``): with a
/// writer thread, the event loop, once it has let that group's replies go (so a reply leaves
/// before anyone else hears of its write); without one (tools, tests), the committer's leader.
public final class DurableNotices: Sendable {
    /// Told whether the group it waited for was durable (false: rolled back).
    public typealias Notice = @Sendable (_ succeeded: Bool) -> Void

    private struct State {
        /// Every group up to this one has finished.
        var finishedThrough: UInt64 = 0
        /// Every notice of a group up to this one has run (it trails ``finishedThrough`` while
        /// a group's notices run): a notice for such a group runs at once.
        var toldThrough: UInt64 = 0
        /// The latest groups that failed, for a notice that comes after its group finished.
        var recentFailures: [UInt64] = []
        /// The newest failed group dropped from ``recentFailures`` (0: none): a range of groups
        /// that reaches back to it may have failed, as far as anyone here can tell.
        var forgottenFailure: UInt64 = 0
        var waiting: [(group: UInt64, listener: Listener)] = []
        /// The array the due notices were last handed out in, given back for its capacity: the
        /// loop tells of every group, and a group's notices then cost no allocation.
        var spare: [(group: UInt64, listener: Listener)] = []

        /// Whether a group in `groups`, all finished, failed (or may have: its failure forgotten).
        func anyFailed(_ groups: ClosedRange<UInt64>) -> Bool {
            forgottenFailure >= groups.lowerBound || recentFailures.contains(where: groups.contains)
        }
    }

    /// Who waits: a closure (made per notice), or a ``GroupNotice`` (registered as itself, so
    /// that a group's notice allocates nothing).
    private enum Listener {
        case closure(Notice)
        case group(GroupNotice)

        func run(_ succeeded: Bool) {
            switch self {
            case .closure(let notice): notice(succeeded)
            case .group(let notice): notice.heard(succeeded)
            }
        }
    }

    private let state = Locked(State())

    /// How many failed groups are remembered for late notices: a notice is registered right
    /// after its write was queued, a group or two before the newest finishes at the most.
    static let failuresRemembered = 16

    /// Runs `notice` once `group` has finished: at once (on this thread) when it has already.
    func after(_ group: UInt64, _ notice: @escaping Notice) {
        after(group, .closure(notice))
    }

    /// Runs `notice` once every group in `groups` has finished, told whether all of them were
    /// durable (a read that may show writes of any of them, ``GroupCommitter/endStoreRead(_:then:)``).
    /// A failure too old to be remembered counts as one in the range.
    func after(_ groups: ClosedRange<UInt64>, _ notice: @escaping Notice) {
        after(groups.upperBound) { [self] succeeded in
            notice(succeeded && !state.withLock { $0.anyFailed(groups) })
        }
    }

    /// Tells `notice` once `group` has finished.
    func after(_ group: UInt64, _ notice: GroupNotice) {
        after(group, .group(notice))
    }

    /// A notice for a group whose notices are running now waits for the teller, which runs it
    /// after them: so one that runs has seen every notice registered before it run.
    private func after(_ group: UInt64, _ listener: Listener) {
        let runNow = state.withLock { state -> Bool? in
            guard group > state.toldThrough else { return !state.recentFailures.contains(group) }
            state.waiting.append((group, listener))
            return nil
        }
        if let succeeded = runNow { listener.run(succeeded) }
    }

    /// Groups up to `group` have finished, `group` itself durable or not: the notices that
    /// waited for them run, on this thread (each must only hand its work on), and then those
    /// registered for them meanwhile.
    public func finished(_ group: UInt64, succeeded: Bool) {
        state.withLock { state in
            state.finishedThrough = max(state.finishedThrough, group)
            if !succeeded {
                state.recentFailures.append(group)
                if state.recentFailures.count > Self.failuresRemembered {
                    state.forgottenFailure = state.recentFailures.removeFirst()
                }
            }
        }
        while let due = takeDue(through: group) {
            for (waited, listener) in due {
                listener.run(waited == group ? succeeded : !state.withLock { $0.recentFailures.contains(waited) })
            }
            state.withLock { $0.spare = due }
        }
    }

    /// The notices waiting for groups up to `group`, in the order they were registered; nil,
    /// and every notice of those groups counted as told, when none waits.
    private func takeDue(through group: UInt64) -> [(group: UInt64, listener: Listener)]? {
        state.withLock { state in
            guard state.waiting.contains(where: { $0.group <= group }) else {
                state.toldThrough = max(state.toldThrough, group)
                return nil
            }
            var due = state.spare
            state.spare = []
            due.removeAll(keepingCapacity: true)
            for waiting in state.waiting where waiting.group <= group { due.append(waiting) }
            state.waiting.removeAll { $0.group <= group }
            return due
        }
    }

    /// Every group up to this one has finished.
    var finishedThrough: UInt64 { state.withLock { $0.finishedThrough } }

    /// How many notices wait (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }
}

/// One listener's notice, waiting at most once per group: a listener that hears of every write
/// (the board) registers for a write's group only when no notice of its waits for that group or
/// a later one, so a group of many writes costs it one notice, and nothing is allocated per write.
public final class GroupNotice: Sendable {
    private let committer: GroupCommitter
    private let notice = Locked<DurableNotices.Notice?>(nil)
    /// The newest group a notice was registered for.
    private let registered = Locked<UInt64>(0)

    public init(_ committer: GroupCommitter) {
        self.committer = committer
    }

    /// What runs once a change is durable (or rolled back); set once, before any change.
    public func listen(_ body: @escaping DurableNotices.Notice) {
        notice.withLock { $0 = body }
    }

    /// A write was queued: the notice runs once everything queued so far has finished.
    public func changed() {
        let group = committer.lastQueuedGroup
        let isNew = registered.withLock { registered in
            guard group > registered else { return false }
            registered = group
            return true
        }
        if isNew { committer.notices.after(group, self) }
    }

    /// Its group has finished.
    fileprivate func heard(_ succeeded: Bool) {
        notice.withLock { $0 }?(succeeded)
    }
}
