import Dispatch
import WaterProtocol
import WaterSync

/// Where reads too costly for the event loop run (a year of boards, a year of drinks, the whole
/// todo list, a year's heatmap: 3-9 ms each, measured by `scripts/bench hostile`): one at a time
/// on a queue of their own, taken in turn by member (``FairQueue``, keyed by the caller), so a
/// member who pipelines them on 16 connections waits behind their own calls, another member's
/// heavy read waits behind at most one of theirs, and the loop serves everyone's other calls
/// meanwhile (issue 30: one member's board histories held another member's GetToday 113-307 ms
/// at the median, and 7-9 ms with the loop shared by member alone).
///
/// A member has at most ``maximumPerMember`` reads waiting or running; more are refused with
/// RESOURCE_EXHAUSTED at once, never queued, so what waits here is bounded.
///
/// The reply of a read made here is handed to the connection, which sends it only once the log
/// group holding every write queued by then is durable, as it does for every reply: a read never
/// shows a write that could still be lost.
final class ReadPool: Sendable {
    /// Reads waiting or running for one member: 4 calls in flight on each of 16 connections.
    static let maximumPerMember = 64

    private let queue = DispatchQueue(label: "water.reads", qos: .userInitiated)
    /// The one owner of the waiting reads and each member's count (`Locked`, a pthread mutex,
    /// which ThreadSanitizer sees: it took `Synchronization.Mutex`'s futex for a race).
    private let waiting = Locked(FairQueue<Read>(maximumPerAddress: maximumPerMember))

    /// A read: it does its work and returns how to answer, which runs once the read no longer
    /// counts against its member (so the member's next call, sent as soon as the answer comes,
    /// finds its place free).
    typealias Read = @Sendable () -> (@Sendable () -> Void)

    /// Runs `read` on the pool in its member's turn; false, and nothing queued, when `member`
    /// already has its maximum waiting.
    func submit(from member: UInt64, _ read: @escaping Read) -> Bool {
        guard waiting.withLock({ $0.enqueue(read, from: String(member)) }) else { return false }
        // One block per read queued: each runs whichever read is next in turn by then.
        queue.async { self.runNext() }
        return true
    }

    private func runNext() {
        guard let (read, ticket) = waiting.withLock({ $0.next() }) else { return }
        let answer = read()
        waiting.withLock { $0.finished(ticket) }
        answer()
    }

    static let refusal = WaterError(
        .resourceExhausted,
        "you have \(maximumPerMember) large reads (history, board history, year, todo list) waiting already; "
            + "wait for their answers and try again")
}
