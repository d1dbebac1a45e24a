import WaterServer
import WaterSync

/// The wall's own figures for `/metrics`: answers by status, live streams open, boards sent.
/// Written by MHD's connection threads, read by the one answering `/metrics`; one lock.
final class WallCounters: Sendable {
    private struct Counts {
        var answers: [UInt32: Int] = [:]
        var streamsOpen = 0
        var streams = 0
        var boardsSent = 0
    }

    private let counts = Locked(Counts())

    func answered(_ status: UInt32) {
        counts.withLock { $0.answers[status, default: 0] += 1 }
    }

    func streamOpened() {
        counts.withLock { counts in
            counts.streamsOpen += 1
            counts.streams += 1
        }
    }

    func streamClosed() { counts.withLock { $0.streamsOpen -= 1 } }
    func boardSent() { counts.withLock { $0.boardsSent += 1 } }

    func add(to text: inout MetricsText) {
        let counts = counts.withLock { $0 }
        text.add(
            "water_wall_requests_total", .counter, "Requests to the kitchen wall, by the status answered.",
            counts.answers.sorted { $0.key < $1.key }.map { ("code=\"\($0.key)\"", $0.value) })
        text.add("water_wall_streams_open", .gauge, "Live streams of the wall's page open now.", counts.streamsOpen)
        text.add("water_wall_streams_total", .counter, "Live streams of the wall's page opened.", counts.streams)
        text.add("water_wall_boards_sent_total", .counter, "Boards sent on the wall's live streams.", counts.boardsSent)
    }
}
