import Foundation
import Glibc
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync
import WaterTransport

/// Issue 30 item 3 from outside: whether one member's reads can hold the loop that serves
/// everyone. A member (h2) pipelines one kind of read on ``readerConnections`` connections,
/// ``readerDepth`` calls in flight on each, for ``readerSeconds``, while another member (h1)
/// calls GetToday on a connection of its own, one call due every ``probeIntervalSeconds``
/// (``probe(_:for:)``). The target: h1's p50 at most 5 ms and p99 at most 50 ms, whatever h2
/// reads.
extension HostileBenchmark {
    static let readerConnections = 16
    static let readerDepth = 4
    static let readerSeconds = 6.0
    static let probeIntervalSeconds = 0.01

    /// The reads, named as their figures are: the largest reply each can make here.
    static func reads(token: [UInt8], now: Int64) -> [(kind: String, frame: @Sendable (UInt64) throws -> [UInt8])] {
        func calls(_ request: some UnaryRPCRequest) -> @Sendable (UInt64) throws -> [UInt8] {
            { try ServerBenchmark.frame(request, callID: $0, token: token) }
        }
        let today = LocalDate(daysSinceEpoch: Int(now / 86_400_000))
        return [
            ("board_history", calls(WaterV1.GetBoardHistoryRequest(weeks: 52, order: .progress))),
            ("history_entries", calls(WaterV1.GetHistoryRequest(days: 366, includeEntries: true))),
            ("todos", calls(WaterV1.ListTodosRequest())),
            // Last year: all of its days in the 5-year archive.
            ("year", calls(WaterV1.GetYearRequest(year: UInt32(today.components.year - 1)))),
            (
                "past_board",
                calls(WaterV1.GetBoardRequest(week: ISOWeek(containing: today.adding(days: -182)).description))
            ),
        ]
    }

    /// h2 reads while h1 calls GetToday; first h1 alone, the baseline.
    /// - Important: run it before anything imports into h2's archive: the history read is
    ///   the 5-year archive's.
    mutating func measureReads(_ address: HostPort, probeToken: [UInt8], serverPID: Int32) throws {
        let reader = try ServerBenchmark.login(address, "h2")
        try Self.fillTodoList(reader)
        let sockets = try (0..<Self.readerConnections).map { _ in try ServerBenchmark.handshaken(address) }
        defer { sockets.forEach { $0.close() } }

        let (quiet, quietFailure) = Self.probe(try MemberProbe(address, token: probeToken), for: Self.readerSeconds)
        if let quietFailure { throw WaterBenchError("GetToday alone \(quietFailure)") }
        record("reads_none_member_p50_ms", Measure.median(quiet) / 1000)
        record("reads_none_member_p99_ms", Measure.percentile(quiet, 0.99) / 1000)
        for (kind, frame) in Self.reads(token: reader.token, now: UnixTime.nowMilliseconds()) {
            // One call alone first: the archives it reads are loaded before the clock starts, and
            // a request the server refuses shows here.
            let warm = try PipelinedReads.run([sockets[0]], depth: 1, seconds: 0, frame: frame)
            guard warm.count(.ok) == 1 else { throw WaterBenchError("\(kind) failed alone: \(warm.statuses)") }

            let outcome = Locked<Result<PipelinedReads.Totals, any Error>?>(nil)
            let thread = Thread {
                let result = Result {
                    try PipelinedReads.run(sockets, depth: Self.readerDepth, seconds: Self.readerSeconds, frame: frame)
                }
                outcome.withLock { $0 = result }
            }
            let cpuBefore = LoadGenerator.cpuMicroseconds(of: serverPID)
            thread.start()
            let (latencies, failure) = Self.probe(try MemberProbe(address, token: probeToken), for: Self.readerSeconds)
            while !thread.isFinished { usleep(1000) }
            let cpu = LoadGenerator.cpuMicroseconds(of: serverPID) - cpuBefore
            let totals = try outcome.withLock { $0 }!.get()

            record("reads_\(kind)_member_p50_ms", Measure.median(latencies) / 1000)
            record("reads_\(kind)_member_p99_ms", Measure.percentile(latencies, 0.99) / 1000)
            record("reads_\(kind)_member_max_ms", (latencies.max() ?? 0) / 1000)
            record("reads_\(kind)_per_s", Double(totals.replies) / totals.seconds)
            // The server's CPU time per read (GetToday's included, a few microseconds each).
            record("reads_\(kind)_server_cpu_ms", cpu / Double(max(totals.replies, 1)) / 1000)
            record("reads_\(kind)_reply_kib", Double(totals.bytes) / Double(max(totals.replies, 1)) / 1024)
            record("reads_\(kind)_refused", Double(totals.count(.resourceExhausted)))
            record(
                "reads_\(kind)_failed", Double(totals.replies - totals.count(.ok) - totals.count(.resourceExhausted)))
            let statuses = totals.statuses.sorted { $0.key < $1.key }.map { code, seen in
                "\(seen.count) \(WaterV1.StatusCode(rawValue: code))"
                    + (seen.message.isEmpty ? "" : " (\(quotedPeerText(seen.message, limit: 120)))")
            }
            note("reads \(kind): \(statuses.joined(separator: ", "))")
            if let failure { note("reads \(kind): the member's GetToday \(failure)") }
        }
    }

    /// GetToday's latencies (microseconds) for `seconds`, as members calling at any moment
    /// would see them: one call due every ``probeIntervalSeconds``, sent on time unless the last
    /// one is still waiting. A call that took `V` longer than the interval also counts `V` minus
    /// one interval, minus two, and so on: the calls that would have been due while it waited,
    /// each answered when it was (HdrHistogram's `recordValueWithExpectedInterval`, the usual
    /// correction for coordinated omission); the next call is sent as soon as it returns.
    ///
    /// An uncorrected closed loop (the next call as soon as a reply is complete) measured the
    /// wrong thing here: it makes thousands of calls while the loop is idle and one per long
    /// turn, so a loop held for whole seconds kept its p99 under a millisecond in one run, and
    /// in the next, with the turns falling differently, its p50 was 200 ms.
    ///
    /// A call that fails ends the run, its wait counted (a floor: no reply within 30 s), with why.
    static func probe(_ member: MemberProbe, for seconds: Double) -> (latencies: [Double], failure: String?) {
        let interval = probeIntervalSeconds * 1e6
        let start = Measure.now()
        let end = start + UInt64(seconds * 1e9)
        var latencies: [Double] = []
        var due = start
        while due < end {
            let now = Measure.now()
            if now < due { usleep(UInt32((due - now) / 1000)) }
            let sent = Measure.now()
            var failure: String?
            do { _ = try member.call() } catch { failure = "failed: \(error)" }
            let done = Measure.now()
            var waited = Double(done - sent) / 1000
            repeat {
                latencies.append(waited)
                waited -= interval
            } while waited > 0
            if let failure { return (latencies, failure) }
            due = max(due + UInt64(interval * 1000), done)
        }
        return (latencies, nil)
    }

    /// Fills the household's list to ``TodoList/maximumItems`` with the longest items allowed:
    /// ``SharedText/todoText``'s bytes, in characters of 8 bytes each (a thumb and a skin tone).
    static func fillTodoList(_ member: WaterClient) throws {
        let rule = SharedText.todoText
        let wide = "👍🏽"
        var text = String(repeating: wide, count: min(rule.characters.upperBound, rule.maximumBytes / wide.utf8.count))
        while text.utf8.count < rule.maximumBytes, text.count < rule.characters.upperBound { text += "a" }
        let listed = try member.call(WaterV1.ListTodosRequest()).items.count
        for _ in listed..<TodoList.maximumItems {
            _ = try member.call(WaterV1.AddTodoRequest(itemID: member.newID().description, text: text))
        }
    }
}
