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
/// calls GetToday closed loop on a connection of its own. The target: h1's p50 at most 5 ms and
/// p99 at most 50 ms, whatever h2 reads.
extension HostileBenchmark {
    static let readerConnections = 16
    static let readerDepth = 4
    static let readerSeconds = 6.0

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
    mutating func measureReads(_ address: HostPort, probeToken: [UInt8]) throws {
        let reader = try ServerBenchmark.login(address, "h2")
        try Self.fillTodoList(reader)
        let sockets = try (0..<Self.readerConnections).map { _ in try ServerBenchmark.handshaken(address) }
        defer { sockets.forEach { $0.close() } }

        let quiet = try MemberProbe(address, token: probeToken).calls(for: Self.readerSeconds)
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
            thread.start()
            let (latencies, failure) = Self.probe(try MemberProbe(address, token: probeToken), for: Self.readerSeconds)
            while !thread.isFinished { usleep(1000) }
            let totals = try outcome.withLock { $0 }!.get()

            record("reads_\(kind)_member_p50_ms", Measure.median(latencies) / 1000)
            record("reads_\(kind)_member_p99_ms", Measure.percentile(latencies, 0.99) / 1000)
            record("reads_\(kind)_member_calls", Double(latencies.count))
            record("reads_\(kind)_per_s", Double(totals.replies) / totals.seconds)
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

    /// GetToday's latencies (microseconds) for `seconds`. A call that fails ends the run, its
    /// wait counted (a floor: it got no reply within 30 s), with why.
    static func probe(_ member: MemberProbe, for seconds: Double) -> (latencies: [Double], failure: String?) {
        let end = Measure.now() + UInt64(seconds * 1e9)
        var latencies: [Double] = []
        while Measure.now() < end {
            let start = Measure.now()
            do {
                latencies.append(try member.call())
            } catch {
                latencies.append(Double(Measure.now() - start) / 1000)
                return (latencies, "failed: \(error)")
            }
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
