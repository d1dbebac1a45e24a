import WaterCore
import WaterProtocol

extension Outbox {
    /// What sending the outbox did.
    public struct SendReport: Sendable {
        public var sent: [Write] = []
        /// Each refused write with the server's reason; it has moved to `refused/`.
        public var refused: [(write: Write, reason: String)] = []
        /// Files that did not read, kept aside.
        public var damaged: [String] = []
        /// Writes left because the server went away while sending.
        public var stillWaiting = 0
        /// Writes left because the session has expired.
        public var waitingForLogin = 0

        public init(damaged: [String] = []) {
            self.damaged = damaged
        }
    }

    /// Sends what the outbox holds for `username` on `server`, oldest first, under the outbox's
    /// lock. Stops at the first write the server could not be reached for (the rest keep their
    /// order) and at an expired session (they wait for a login); a write the server refuses
    /// moves to `refused/` and the next one goes.
    /// - Parameters:
    ///   - cache: what this computer knows, read only when there is something to send.
    ///   - keep: given the cache once, with every reply in it, when the server answered any
    ///     write (not a read and a write of it per write sent); called under the lock.
    public func send(
        for server: String, username: String, with client: WaterClient, cache: () -> StatusCache,
        keep: (StatusCache) -> Void
    ) -> SendReport {
        withSendingLock {
            let (writes, damaged) = pending()
            var report = SendReport(damaged: damaged)
            let mine = writes.filter { $0.server == server && $0.username == username }
            guard !mine.isEmpty else { return report }
            var cache = cache()
            for (index, write) in mine.enumerated() {
                do throws(WaterError) {
                    try write.request.send(with: client, into: &cache, now: UnixTime.nowMilliseconds())
                    sent(write)
                    report.sent.append(write)
                } catch  where error.isUnreachable {
                    report.stillWaiting = mine.count - index
                    break
                } catch  where error.code == .unauthenticated {
                    report.waitingForLogin = mine.count - index
                    break
                } catch {
                    try? refuse(write, reason: error.message)
                    report.refused.append((write, error.message))
                }
            }
            if !report.sent.isEmpty || !report.refused.isEmpty { keep(cache) }
            return report
        }
    }
}

extension Error {
    /// The server could not be reached, or the connection was lost before its answer: what a
    /// write may wait in the outbox for. An answer from the server is never this.
    public var isUnreachable: Bool {
        guard let error = self as? WaterError else { return false }
        return error.code == .unavailable || error.code == .deadlineExceeded
    }
}
