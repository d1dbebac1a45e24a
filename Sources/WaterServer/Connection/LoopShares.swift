/// Each member's share of a loop turn: the time the loop spends on one member's calls in a turn
/// is counted, and once it reaches ``budget`` that member's connections take no more frames
/// until the next turn. Their frames wait in their decoders, and their sockets unread (the
/// kernel's window pushes back), so nothing is held for them meanwhile.
///
/// A member who pipelines expensive reads on 16 connections gets about one budget a turn, and
/// every other member's calls are still served in each turn: the fairness a connection's frame
/// budget gives each address before login, applied by who calls once they have logged in
/// (issue 30: one member's pipelined board histories held another member's GetToday for
/// 305-758 ms). A member's first call of a turn always runs, so nobody is starved either.
///
/// A value of the event loop's: the ``ConnectionRegistry`` owns it, and connections ask it
/// through their owner, on the loop.
struct LoopShares {
    /// Nanoseconds of one turn a member's calls may take before the member waits for the next.
    let budget: UInt64
    private var turn: UInt64?
    /// Each member's time in ``turn``, by account id (a household's members: a small table,
    /// emptied each turn with its capacity kept, so counting allocates nothing).
    private var spent: [UInt64: UInt64] = [:]

    /// 2 ms: ordinary calls take 10-100 µs, so a member's everyday use never meets it.
    static let standardBudget: UInt64 = 2_000_000

    init(budget: UInt64 = standardBudget) {
        precondition(budget > 0)
        self.budget = budget
    }

    /// Whether `member` may have another call run in `turn`.
    mutating func hasShare(_ member: UInt64, inTurn turn: UInt64) -> Bool {
        startTurn(turn)
        return spent[member, default: 0] < budget
    }

    /// The loop spent `nanoseconds` on a call of `member`'s in `turn`.
    mutating func charge(_ member: UInt64, nanoseconds: UInt64, inTurn turn: UInt64) {
        startTurn(turn)
        spent[member, default: 0] += nanoseconds
    }

    private mutating func startTurn(_ turn: UInt64) {
        guard turn != self.turn else { return }
        self.turn = turn
        spent.removeAll(keepingCapacity: true)
    }
}
