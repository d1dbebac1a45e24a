import CCurl
import Dispatch
import WaterCore
import WaterLog
import WaterServer
import WaterSync

/// Sends reminders to ntfy-compatible push endpoints (ntfy's publish API: a POST of the text,
/// with Title, Priority and Tags headers and the member's token as a bearer), through libcurl's
/// multi interface on a thread of its own: many transfers at once, so an endpoint that hangs
/// holds only its own, for at most ``timeoutMilliseconds``.
///
/// ## Who owns what
///
/// - **``waiting``** (behind its lock): reminders handed over and not started yet, and retries
///   with the time they may start; at most ``maximumWaiting``, past which one is dropped (and
///   logged, without its URL or token).
/// - **The multi handle and the transfers in flight** belong to the sender's thread alone, but for
///   `curl_multi_wakeup`, which libcurl lets any thread call.
public final class PushSender: ReminderChannel {
    /// One transfer's whole time, connecting included.
    static let timeoutMilliseconds = 5_000
    /// After a failure: the waits before the second and third tries.
    static let retryDelays: [UInt64] = [1_000_000_000, 4_000_000_000]
    static let maximumWaiting = 64

    struct Job: Sendable {
        var reminder: Reminder
        var target: ReminderSettings.PushTarget
        var attempt = 0
        /// `DispatchTime.now().uptimeNanoseconds` it may start at.
        var notBefore: UInt64 = 0
    }

    /// The multi handle, used on the sender's thread only but for the wake-up.
    private struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    private let multi: Multi
    private let logger: Logger
    private let waiting = Locked<(jobs: [Job], isStopping: Bool)>(([], false))
    private let finished = DispatchSemaphore(value: 0)
    /// Transfers that ended, by outcome: for tests and `status` (behind its lock).
    private let outcomes = Locked<(sent: Int, failed: Int, dropped: Int)>((0, 0, 0))

    /// What `/metrics` shows of the outcomes.
    private let deliveries: DeliveryCounts

    /// - Returns: nil when libcurl cannot be set up (out of memory).
    public init?(logger: Logger, deliveries: DeliveryCounts = DeliveryCounts()) {
        self.deliveries = deliveries
        guard curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK, let handle = curl_multi_init() else { return nil }
        multi = Multi(handle: handle)
        self.logger = logger
        DispatchQueue(label: "water.push", qos: .utility).async { self.run() }
    }

    /// How many reminders were sent, failed for good, or dropped for a full queue.
    public var counts: (sent: Int, failed: Int, dropped: Int) { outcomes.withLock { $0 } }

    public func send(_ reminders: [Reminder]) {
        var dropped = 0
        waiting.withLock { waiting in
            for reminder in reminders {
                guard let target = reminder.recipient.reminders.push, !waiting.isStopping else { continue }
                guard waiting.jobs.count < Self.maximumWaiting else {
                    dropped += 1
                    continue
                }
                waiting.jobs.append(Job(reminder: reminder, target: target))
            }
        }
        if dropped > 0 {
            outcomes.withLock { $0.dropped += dropped }
            deliveries.reminders(.push, .dropped, count: dropped)
            logger.warning("push reminders dropped: too many waiting", ["count": "\(dropped)"])
        }
        curl_multi_wakeup(multi.handle)
    }

    /// Stops taking reminders and ends the thread (transfers in flight are abandoned).
    public func stop() {
        waiting.withLock { $0.isStopping = true }
        curl_multi_wakeup(multi.handle)
        _ = finished.wait(timeout: .now() + .seconds(2))
    }

    /// The sender's thread: starts what may start, runs the transfers, and sleeps until a
    /// transfer has news, a retry is due or ``send(_:)`` wakes it.
    private func run() {
        var inFlight: [UnsafeMutableRawPointer: (job: Job, headers: UnsafeMutablePointer<curl_slist>?)] = [:]
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (ready, nextRetry, isStopping) = waiting.withLock { waiting in
                let ready = waiting.jobs.filter { $0.notBefore <= now }
                waiting.jobs.removeAll { $0.notBefore <= now }
                return (ready, waiting.jobs.map(\.notBefore).min(), waiting.isStopping)
            }
            if isStopping { break }
            for job in ready {
                if let started = start(job) { inFlight[started.handle] = (job, started.headers) }
            }
            var running: Int32 = 0
            curl_multi_perform(multi.handle, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = inFlight.removeValue(forKey: handle)
                else { continue }
                let status = water_curl_status(handle)
                let result = message.pointee.data.result
                curl_multi_remove_handle(multi.handle, handle)
                water_curl_cleanup(handle)
                curl_slist_free_all(transfer.headers)
                finish(transfer.job, ok: result == CURLE_OK && (200..<300).contains(status), status: status)
            }
            let untilRetry = nextRetry.map { Int32(min(max(Int64($0) - Int64(now), 0) / 1_000_000, 1000)) } ?? 1000
            curl_multi_poll(multi.handle, nil, 0, untilRetry, nil)
        }
        for (handle, transfer) in inFlight {
            curl_multi_remove_handle(multi.handle, handle)
            water_curl_cleanup(handle)
            curl_slist_free_all(transfer.headers)
        }
        curl_multi_cleanup(multi.handle)
        finished.signal()
    }

    /// Adds `job`'s POST to the multi handle; nil when libcurl refused it.
    private func start(_ job: Job) -> (handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?)? {
        var headers: UnsafeMutablePointer<curl_slist>?
        // The title is ASCII whatever the member's name: a header is no place for UTF-8 (the
        // body, which carries the name, is).
        let forChild = job.reminder.recipient.id != job.reminder.memberID
        let title =
            job.reminder.kind == "chore"
            ? job.reminder.title : forChild ? "Water for a child" : "A glass of water?"
        for header in [
            "Title: \(title)", "Priority: default", "Tags: droplet", "Content-Type: text/plain; charset=utf-8",
        ] + (job.target.token.isEmpty ? [] : ["Authorization: Bearer \(job.target.token)"]) {
            headers = curl_slist_append(headers, header)
        }
        let body = Array(job.reminder.text.utf8)
        let handle = body.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                water_curl_post(job.target.url, chars.baseAddress, body.count, headers, Self.timeoutMilliseconds)
            }
        }
        guard let handle, curl_multi_add_handle(multi.handle, handle) == CURLM_OK else {
            if let handle { water_curl_cleanup(handle) }
            curl_slist_free_all(headers)
            finish(job, ok: false, status: 0, retry: false)
            return nil
        }
        return (handle, headers)
    }

    /// A transfer ended: counted, or tried again after a wait. A refusal (4xx but 429) is not
    /// tried again: the token or URL is wrong, and asking again changes nothing.
    private func finish(_ job: Job, ok: Bool, status: Int, retry: Bool = true) {
        if ok {
            outcomes.withLock { $0.sent += 1 }
            deliveries.reminders(.push, .sent)
            return
        }
        let refused = (400..<500).contains(status) && status != 429
        if retry, !refused, job.attempt < Self.retryDelays.count {
            var again = job
            again.notBefore = DispatchTime.now().uptimeNanoseconds + Self.retryDelays[job.attempt]
            again.attempt += 1
            waiting.withLock { $0.jobs.append(again) }
            return
        }
        outcomes.withLock { $0.failed += 1 }
        deliveries.reminders(.push, .failed)
        // Never the URL or the token: they are the member's secrets.
        logger.warning(
            "push reminder not delivered",
            ["member": job.reminder.recipient.username, "status": status == 0 ? "no answer" : "\(status)"])
    }
}
