import Testing

@testable import WaterServer

@Suite("FairQueue")
struct FairQueueTests {
    /// Takes every job that can run now, finishing each before the next: the order one runner
    /// would run them in.
    private func drained(_ queue: inout FairQueue<String>) -> [String] {
        var order: [String] = []
        while let (job, ticket) = queue.next() {
            order.append(job)
            queue.finished(ticket)
        }
        return order
    }

    /// The next job, which the test expects there to be.
    private func take(
        _ queue: inout FairQueue<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (job: String, ticket: FairQueue<String>.Ticket) {
        let next = queue.next()
        return try #require(next, sourceLocation: sourceLocation)
    }

    @Test("128 guesses from one address: 32 are queued, the rest refused; a quiet address's job runs second")
    func quietAddressServedInTurn() {
        var queue = FairQueue<String>(maximumPerAddress: 32)
        let queued = (1...128).filter { queue.enqueue("noisy \($0)", from: "10.0.0.66", lane: "guess\($0)") }
        #expect(queued == Array(1...32))
        let quiet = queue.enqueue("quiet", from: "10.0.0.20", lane: "ann")
        #expect(quiet)
        let order = drained(&queue)
        #expect(order.prefix(3) == ["noisy 1", "quiet", "noisy 2"])
        #expect(order.count == 33 && order.last == "noisy 32")
    }

    @Test("addresses take turns, one job each, in the order they first queued")
    func roundRobin() {
        var queue = FairQueue<String>(maximumPerAddress: 8)
        for n in 1...3 { _ = queue.enqueue("a\(n)", from: "a") }
        _ = queue.enqueue("b1", from: "b")
        for n in 1...2 { _ = queue.enqueue("c\(n)", from: "c") }
        #expect(drained(&queue) == ["a1", "b1", "c1", "a2", "c2", "a3"])
    }

    @Test("the bound counts running jobs too, and a finished one frees its place")
    func boundCountsRunning() throws {
        var queue = FairQueue<String>(maximumPerAddress: 2)
        let (first, second) = (queue.enqueue("1", from: "a"), queue.enqueue("2", from: "a"))
        #expect(first && second)
        let (_, ticket) = try take(&queue)
        let third = queue.enqueue("3", from: "a")
        #expect(!third, "one running and one waiting is the bound")
        let elsewhere = queue.enqueue("elsewhere", from: "b")
        #expect(elsewhere, "another address has its own bound")
        queue.finished(ticket)
        #expect(queue.load(of: "a") == 1)
        let again = queue.enqueue("3", from: "a")
        #expect(again)
    }

    @Test("jobs of one lane run one at a time and in order; other lanes and addresses go on meanwhile")
    func lanes() throws {
        var queue = FairQueue<String>(maximumPerAddress: 8)
        for n in 1...3 { _ = queue.enqueue("ann \(n)", from: "a", lane: "ann") }
        _ = queue.enqueue("bob", from: "a", lane: "bob")
        _ = queue.enqueue("other", from: "b", lane: "ann")
        let (first, ticket) = try take(&queue)
        #expect(first == "ann 1")
        // While ann's first is checked, her next ones wait; bob's (same address) and the other
        // address's (same name) do not.
        let (second, secondTicket) = try take(&queue)
        let (third, thirdTicket) = try take(&queue)
        #expect([second, third] == ["other", "bob"])
        let none = queue.next()
        #expect(none == nil && !queue.hasRunnableJob)
        queue.finished(secondTicket)
        queue.finished(thirdTicket)
        let stillNone = queue.next()
        #expect(stillNone == nil, "ann 2 waits for ann 1")
        queue.finished(ticket)
        #expect(queue.hasRunnableJob)
        #expect(drained(&queue) == ["ann 2", "ann 3"])
    }

    @Test("an address whose jobs all wait for a busy lane keeps its place in the turns")
    func blockedAddressKeepsItsPlace() throws {
        var queue = FairQueue<String>(maximumPerAddress: 8)
        for address in ["a", "b", "c"] {
            for n in 1...2 { _ = queue.enqueue("\(address)\(n)", from: address, lane: "one lane") }
        }
        var tickets: [String: FairQueue<String>.Ticket] = [:]
        for _ in 0..<3 {
            let (job, ticket) = try take(&queue)
            tickets[job] = ticket
        }
        #expect(Set(tickets.keys) == ["a1", "b1", "c1"])
        queue.finished(tickets["b1"]!)
        // a's and c's next jobs wait for their lanes; b's runs, and a stays first in line.
        let (b2, b2Ticket) = try take(&queue)
        #expect(b2 == "b2")
        queue.finished(b2Ticket)
        queue.finished(tickets["c1"]!)
        queue.finished(tickets["a1"]!)
        #expect(drained(&queue) == ["a2", "c2"])
    }
}
