import Testing

@testable import WaterServer

/// Each member's share of a loop turn, with no loop (issue 30 item 3).
@Suite("Loop shares by member")
struct LoopSharesTests {
    static let millisecond: UInt64 = 1_000_000

    @Test("a member's calls run until their time in the turn reaches the budget; others keep theirs")
    func budgetPerMember() {
        var shares = LoopShares(budget: 2 * Self.millisecond)
        // The heavy reader's first call always runs, however long it takes.
        let first = shares.hasShare(7, inTurn: 1)
        #expect(first)
        shares.charge(7, nanoseconds: 6 * Self.millisecond, inTurn: 1)
        let second = shares.hasShare(7, inTurn: 1)
        #expect(!second, "over the budget: the rest waits for the next turn")
        // Another member in the same turn is not held back.
        var served = 0
        for _ in 0..<100 where shares.hasShare(3, inTurn: 1) {
            shares.charge(3, nanoseconds: 100_000, inTurn: 1)
            served += 1
        }
        #expect(served == 20, "2 ms of 0.1 ms calls")
        // The next turn, everyone has their whole share again.
        let heavyAgain = shares.hasShare(7, inTurn: 2)
        let lightAgain = shares.hasShare(3, inTurn: 2)
        #expect(heavyAgain && lightAgain)
    }

    @Test("over many turns, a member pipelining 6 ms calls gets one call a turn")
    func oneHeavyCallPerTurn() {
        var shares = LoopShares()
        var heavyCalls = 0
        for turn in 1...100 as ClosedRange<UInt64> {
            // 16 connections of the same member, each with a call waiting.
            for _ in 0..<16 where shares.hasShare(42, inTurn: turn) {
                shares.charge(42, nanoseconds: 6 * Self.millisecond, inTurn: turn)
                heavyCalls += 1
            }
        }
        #expect(heavyCalls == 100)
    }
}
