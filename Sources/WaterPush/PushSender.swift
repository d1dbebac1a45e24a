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
/// A member chooses the URL, so the server would POST wherever they say: unless the operator
/// allows it (`serve --push-allow-private`), no connection is opened to an address on this
/// machine or the house's network (``water_curl_address_is_private``), checked on the address
/// the name resolved to, as the socket is opened; such a send is refused, counted and logged
/// without the URL.
///
/// ## Who owns what
///
/// - **``waiting``** (behind its lock): reminders handed over and not started yet, and retries
///   with the time they may start (a ``PushQueue``: bounded, a fair share per recipient), and
///   whether the sender stops. `curl_multi_wakeup` is called under the lock, so never after the
///   thread, seeing the stop, has freed the multi handle.
/// - **The multi handle and the transfers in flight** belong to the sender's thread alone, but for
///   `curl_multi_wakeup`, which libcurl lets any thread call.
public final class PushSender: ReminderChannel {
    /// One transfer's whole time, connecting included.
    static let timeoutMilliseconds = 5_000
    /// After a failure: the waits before the second and third tries.
    static let retryDelays: [UInt64] = [1_000_000_000, 4_000_000_000]
    /// How long ``stop()`` waits for the thread (a name being resolved holds it until the
    /// resolver answers).
    static let stopWait = DispatchTimeInterval.seconds(2)

    /// The multi handle, used on the sender's thread only but for the wake-up.
    private struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

    /// Transfers that ended, by outcome: for tests and the log (behind its lock).
    public struct Counts: Equatable, Sendable {
        public var sent = 0
        public var failed = 0
        /// For a full queue, or a recipient past their share of it.
        public var dropped = 0
        /// To an address the operator did not allow.
        public var refused = 0
    }

    private let multi: Multi
    private let logger: Logger
    private let allowsPrivate: Bool
    private let waiting = Locked<(queue: PushQueue, isStopping: Bool)>((PushQueue(), false))
    private let finished = DispatchSemaphore(value: 0)
    private let outcomes = Locked(Counts())

    /// What `/metrics` shows of the outcomes.
    private let deliveries: DeliveryCounts

    /// - Parameter allowPrivate: whether endpoints on this machine or the house's network may be
    ///   sent to (a family's own ntfy on the Pi).
    /// - Returns: nil when libcurl cannot be set up (out of memory).
    public init?(logger: Logger, allowPrivate: Bool = false, deliveries: DeliveryCounts = DeliveryCounts()) {
        self.deliveries = deliveries
        guard curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK, let handle = curl_multi_init() else { return nil }
        multi = Multi(handle: handle)
        self.logger = logger
        allowsPrivate = allowPrivate
        DispatchQueue(label: "water.push", qos: .utility).async { self.run() }
    }

    /// How many reminders were sent, failed for good, dropped or refused.
    public var counts: Counts { outcomes.withLock { $0 } }

    public func send(_ reminders: [Reminder]) {
        let dropped = waiting.withLock { waiting -> Int in
            guard !waiting.isStopping else { return 0 }
            var dropped = 0
            for reminder in reminders {
                guard let target = reminder.recipient.reminders.push else { continue }
                dropped += waiting.queue.add(PushQueue.Job(reminder: reminder, target: target))
            }
            curl_multi_wakeup(multi.handle)
            return dropped
        }
        if dropped > 0 {
            outcomes.withLock { $0.dropped += dropped }
            deliveries.reminders(.push, .dropped, count: dropped)
            logger.warning("push reminders dropped: too many waiting", ["count": "\(dropped)"])
        }
    }

    /// Stops taking reminders and ends the thread, waiting at most ``stopWait`` for it: what
    /// waits is dropped and transfers in flight are abandoned. A second call does nothing.
    public func stop() {
        let first = waiting.withLock { waiting -> Bool in
            guard !waiting.isStopping else { return false }
            waiting.isStopping = true
            curl_multi_wakeup(multi.handle)
            return true
        }
        guard first else { return }
        if finished.wait(timeout: .now() + Self.stopWait) == .timedOut {
            logger.warning("push sender did not stop in time; exiting without it", [:])
        }
    }

    /// The sender's thread: starts what may start, runs the transfers, and sleeps until a
    /// transfer has news, a retry is due or ``send(_:)`` wakes it.
    private func run() {
        var inFlight: [UnsafeMutableRawPointer: (job: PushQueue.Job, headers: UnsafeMutablePointer<curl_slist>?)] = [:]
        var left = 0
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (ready, nextRetry, isStopping) = waiting.withLock { waiting in
                waiting.isStopping
                    ? ([], nil, true) : (waiting.queue.takeReady(at: now), waiting.queue.nextStart, false)
            }
            if isStopping {
                left = waiting.withLock { $0.queue.removeAll() }
                break
            }
            for job in ready {
                if let started = start(job) { inFlight[started.handle] = (job, started.headers) }
            }
            var running: Int32 = 0
            curl_multi_perform(multi.handle, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = inFlight.removeValue(forKey: handle)
                else { continue }
                let status = water_curl_status(handle)
                let result = message.pointee.data.result
                var address = [CChar](repeating: 0, count: 64)
                let refused = result != CURLE_OK && water_curl_refused(handle, &address, address.count) == 1
                curl_multi_remove_handle(multi.handle, handle)
                water_curl_cleanup(handle)
                curl_slist_free_all(transfer.headers)
                if refused {
                    refuse(
                        transfer.job,
                        address: String(decoding: address.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
                } else {
                    finish(transfer.job, ok: result == CURLE_OK && (200..<300).contains(status), status: status)
                }
            }
            let untilRetry = nextRetry.map { Int32(min(max(Int64($0) - Int64(now), 0) / 1_000_000, 1000)) } ?? 1000
            curl_multi_poll(multi.handle, nil, 0, untilRetry, nil)
        }
        let abandoned = inFlight.count
        for (handle, transfer) in inFlight {
            curl_multi_remove_handle(multi.handle, handle)
            water_curl_cleanup(handle)
            curl_slist_free_all(transfer.headers)
        }
        curl_multi_cleanup(multi.handle)
        let counts = self.counts
        logger.info(
            "push sender stopped",
            [
                "sent": "\(counts.sent)", "failed": "\(counts.failed)", "dropped": "\(counts.dropped)",
                "refused": "\(counts.refused)", "waiting_dropped": "\(left)", "abandoned": "\(abandoned)",
            ])
        finished.signal()
    }

    /// Adds `job`'s POST to the multi handle; nil when libcurl refused it.
    private func start(_ job: PushQueue.Job) -> (
        handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?
    )? {
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
                water_curl_post(
                    job.target.url, chars.baseAddress, body.count, headers, Self.timeoutMilliseconds,
                    allowsPrivate ? 1 : 0)
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
    private func finish(_ job: PushQueue.Job, ok: Bool, status: Int, retry: Bool = true) {
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
            let dropped = waiting.withLock { $0.isStopping ? 0 : $0.queue.add(again) }
            outcomes.withLock { $0.dropped += dropped }
            if dropped > 0 { deliveries.reminders(.push, .dropped, count: dropped) }
            return
        }
        outcomes.withLock { $0.failed += 1 }
        deliveries.reminders(.push, .failed)
        // Never the URL or the token: they are the member's secrets.
        logger.warning(
            "push reminder not delivered",
            ["member": job.reminder.recipient.username, "status": status == 0 ? "no answer" : "\(status)"])
    }

    /// A transfer whose endpoint resolved to an address not allowed: never tried again (the
    /// name points there on purpose, or the member's URL is wrong). The address is said, for
    /// the operator; the URL, its path and the token are not.
    private func refuse(_ job: PushQueue.Job, address: String) {
        outcomes.withLock { $0.refused += 1 }
        // Not delivered, for good: /metrics counts it as failed (the log says why).
        deliveries.reminders(.push, .failed)
        logger.warning(
            "push reminder refused: the endpoint is on this machine or the local network "
                + "(serve --push-allow-private allows it)",
            ["member": job.reminder.recipient.username, "address": address])
    }
}
