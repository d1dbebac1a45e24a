import Dispatch
import WaterProtocol
import WaterStore
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
/// A read's answer waits until every write it could have seen (queued, not yet synced, when it
/// read) is durable, and is refused instead when a group among them failed: it may show a write
/// that was rolled back (``GroupCommitter/endStoreRead(_:then:)``). The pool goes on with the
/// next read meanwhile, and the loop is never held: the connection is handed an answer that
/// shows durable writes only.
final class ReadPool: Sendable {
    /// Reads waiting or running for one member: 4 calls in flight on each of 16 connections.
    static let maximumPerMember = 64

    private let queue = DispatchQueue(label: "water.reads", qos: .userInitiated)
    /// The one owner of the waiting reads and each member's count (`Locked`, a pthread mutex,
    /// which ThreadSanitizer sees: it took `Synchronization.Mutex`'s futex for a race).
    private let waiting = Locked(FairQueue<Read>(maximumPerAddress: maximumPerMember))

    /// Whose groups a read's answer waits for; nil (tests of the pool alone): none.
    private let committer: GroupCommitter?

    init(committer: GroupCommitter? = nil) {
        self.committer = committer
    }

    /// A read: it does its work and returns how to answer, which runs once the read no longer
    /// counts against its member (so the member's next call, sent as soon as the answer comes,
    /// finds its place free), and what it read is durable: told false when a write it could
    /// have shown was not stored.
    typealias Read = @Sendable () -> Answer
    typealias Answer = @Sendable (_ stored: Bool) -> Void

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
        let began = committer?.beginStoreRead()
        let answer = read()
        waiting.withLock { $0.finished(ticket) }
        send(answer, after: began)
    }

    /// Runs `read` on this thread (a read no member's turn holds), answering as the pool does.
    func runHere(_ read: Read) {
        let began = committer?.beginStoreRead()
        send(read(), after: began)
    }

    /// Answers once what a read that `began` saw is durable. The wait is told on the thread that
    /// tells of groups (the event loop, maybe at the end of its turn): the answer is handed on.
    private func send(_ answer: @escaping Answer, after began: GroupCommitter.StoreRead?) {
        guard let committer, let began else { return answer(true) }
        committer.endStoreRead(began) { stored in
            DispatchQueue.global(qos: .userInitiated).async { answer(stored) }
        }
    }

    static let refusal = WaterError(
        .resourceExhausted,
        "you have \(maximumPerMember) large reads (history, board history, year, todo list) waiting already; "
            + "wait for their answers and try again")
}
