import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// Writes that wait on this computer while the server cannot be reached, and sending them.
extension Invocation {
    var outbox: Outbox { Outbox(environment: environment) }
    /// This run's server's cache (nil when the server option does not parse).
    var cachePath: String? {
        (try? server()).map { StatusCache.path(environment: environment, server: $0.description) }
    }

    /// What this computer last heard from this run's server about the logged-in member, when it
    /// has anything (never what another server said).
    func cachedStatus() -> StatusCache? {
        guard let session = session(), let cachePath else { return nil }
        return StatusCache.load(cachePath, server: session.server, username: session.username)
            ?? StatusCache.load(
                StatusCache.legacyPath(environment: environment), server: session.server, username: session.username)
    }

    /// Changes the logged-in member's cache (made empty first when there is none) and keeps it,
    /// with the figures `prompt` shows. Under a lock: two terminals changing it at once each read
    /// what the other wrote, and the last one lists the outbox after every write added before it.
    func updateCache(_ change: (inout StatusCache) -> Void) {
        guard let session = session(), let cachePath else { return }
        LocalFile.withLock(cachePath + ".lock") {
            var cache = cachedStatus() ?? StatusCache(server: session.server, username: session.username)
            change(&cache)
            if let zone = session.timeZone { cache.timeZone = zone }
            let zone = ZoneInfo.system.zone(named: cache.timeZone) ?? Self.localZone
            let waiting = waitingWrites()
            let today = cache.today(adding: waiting, zone: zone, now: UnixTime.nowMilliseconds())
            cache.save(cachePath, today: today, waiting: waiting.count)
        }
    }

    /// Keeps what a `GetToday` reply says: the member's zone, and today for `prompt` and for
    /// when the server cannot be reached.
    func remember(_ today: WaterV1.GetTodayResponse) {
        rememberZone(today.settings?.timeZone ?? "")
        updateCache { $0.record(today: today, now: UnixTime.nowMilliseconds()) }
    }

    /// The writes waiting for the logged-in member on their server, oldest first: another login
    /// on this computer never sees, merges or sends them.
    /// A file that does not read is kept aside, and said so here, whichever command found it.
    func waitingWrites() -> [Outbox.Write] {
        guard let session = session() else { return [] }
        let (writes, damaged) = outbox.pending()
        OutboxReport(damaged: damaged).tell(self)
        return writes.filter { $0.server == session.server && $0.username == session.username }
    }

    /// The refused writes of the logged-in member on their server, oldest first.
    func refusedWrites() -> [Outbox.Write] {
        guard let session = session() else { return [] }
        return outbox.refused().filter { $0.server == session.server && $0.username == session.username }
    }

    /// A connected client (that has sent the outbox), or nil when the server cannot be reached:
    /// the caller then keeps its write in the outbox. Not being logged in is still an error.
    func reachableClient() throws -> WaterClient? {
        guard session() != nil else { throw notLoggedIn() }
        do {
            return try client()
        } catch let error as WaterError where error.isUnreachable {
            return nil
        }
    }

    /// The answer to `request`, or nil when the server could not be reached and `queued` (the
    /// same request, its moment fixed to now) was kept in the outbox instead, and said so.
    func callOrQueue<Request: UnaryRPCRequest>(
        _ client: WaterClient?, _ kind: Outbox.Kind, _ request: Request, queued: Request? = nil
    ) throws -> Request.Response? {
        if let client {
            do {
                return try client.call(request)
            } catch {
                // Lost on the way: it may have arrived, and sending it again changes nothing.
                guard error.isUnreachable else { throw error }
            }
        }
        try queue(kind, queued ?? request)
        return nil
    }

    /// Keeps `request` in the outbox (synced) and says so in one line.
    func queue<Request: ProtoMessage>(_ kind: Outbox.Kind, _ request: Request) throws {
        guard let session = session() else { throw notLoggedIn() }
        let write = try outbox.add(
            kind, request: request.serializedBytes(), server: session.server, username: session.username,
            now: UnixTime.nowMilliseconds())
        updateCache { _ in }  // what prompt shows now counts it
        if json {
            Terminal.print(
                JSONOutput.encode(
                    QueuedJSON(
                        queued: true, kind: kind.rawValue, queuedAtUnixMs: write.queuedAtUnixMs, request: request)))
        } else {
            Terminal.print(
                "saved on this computer: \(writeWords()(write)); it will be sent when the server at \(session.server) "
                    + "is reachable")
        }
    }

    /// Sends what the outbox holds for this member and server, oldest first, under the outbox's
    /// lock. Stops at the first write the server could not be reached for (the rest keep their
    /// order) and at an expired session (they wait for `login`).
    func sendQueued(_ client: WaterClient) -> OutboxReport {
        guard let session = session() else { return OutboxReport() }
        let outbox = self.outbox
        return outbox.withSendingLock {
            var report = OutboxReport()
            let (writes, damaged) = outbox.pending()
            report.damaged = damaged
            let mine = writes.filter { $0.server == session.server && $0.username == session.username }
            guard !mine.isEmpty else { return report }
            // The replies go into one copy of the cache, kept once at the end: not a read and a
            // write of it (and a listing of the outbox) per write sent.
            var cache = cachedStatus() ?? StatusCache(server: session.server, username: session.username)
            for (index, write) in mine.enumerated() {
                do {
                    try send(write, client, into: &cache)
                    outbox.sent(write)
                    report.sent.append(write)
                } catch let error as WaterError where error.isUnreachable {
                    report.stillWaiting = mine.count - index
                    break
                } catch let error as WaterError where error.code == .unauthenticated {
                    report.waitingForLogin = mine.count - index
                    break
                } catch {
                    let reason = (error as? WaterError)?.message ?? "\(error)"
                    try? outbox.refuse(write, reason: reason)
                    report.refused.append((write, reason))
                }
            }
            if !report.sent.isEmpty || !report.refused.isEmpty { updateCache { $0 = cache } }
            return report
        }
    }

    /// Sends one queued write; what the reply says goes into `cache`.
    private func send(_ write: Outbox.Write, _ client: WaterClient, into cache: inout StatusCache) throws {
        let now = UnixTime.nowMilliseconds()
        switch write.kind {
        case .log:
            let response = try client.call(WaterV1.LogWaterRequest(serializedBytes: write.request))
            cache.record(day: response.day, now: now)
            response.entry.map { cache.record(entry: $0, now: now) }
        case .edit:
            let response = try client.call(WaterV1.EditWaterRequest(serializedBytes: write.request))
            response.days.forEach { cache.record(day: $0, now: now) }
            response.entry.map { cache.record(entry: $0, now: now) }
        case .remove:
            let request = try WaterV1.DeleteWaterRequest(serializedBytes: write.request)
            do {
                cache.record(day: try client.call(request).day, now: now)
            } catch {
                // Already gone is what it asked for (perhaps it was sent once before a crash).
                guard error.code == .notFound else { throw error }
            }
            cache.forget(entryID: request.entryID)
        case .habitCheck: _ = try client.call(WaterV1.CheckHabitRequest(serializedBytes: write.request))
        case .habitUncheck: _ = try client.call(WaterV1.UncheckHabitRequest(serializedBytes: write.request))
        case .todoAdd: _ = try client.call(WaterV1.AddTodoRequest(serializedBytes: write.request))
        case .todoDone, .todoUndone:
            _ = try client.call(WaterV1.SetTodoDoneRequest(serializedBytes: write.request))
        }
    }

    /// What puts queued writes in words, made once for a list of them: the member's zone and
    /// what this computer knows of their habits and list.
    func writeWords() -> WriteWords {
        WriteWords(zone: (try? memberZone(nil)) ?? Self.localZone, cache: cachedStatus())
    }
}

/// A queued write in words: "log 250 ml at 08:00 on Mon 2026-11-30".
struct WriteWords {
    let zone: MemberTimeZone
    let cache: StatusCache?

    /// Neutralised for the terminal: the names and texts in it are members' (and a server's).
    func callAsFunction(_ write: Outbox.Write) -> String {
        words(write).terminalSafe
    }

    private func words(_ write: Outbox.Write) -> String {
        func when(_ at: Int64) -> String {
            let date = zone.date(atUnixMilliseconds: at).description
            return "at \(Format.clock(at, zone: zone)) on \(Format.dayName(date))"
        }
        func habit(_ id: String) -> String { cache?.habits.first { $0.habitID == id }?.name ?? Format.shortID(id) }
        func item(_ id: String) -> String {
            cache?.todos.first { $0.itemID == id }.map { "\"\($0.text)\"" } ?? Format.shortID(id)
        }
        switch write.kind {
        case .log:
            guard let request = try? WaterV1.LogWaterRequest(serializedBytes: write.request) else { break }
            return
                "log \(request.amountMl == 0 ? "your usual cup" : "\(request.amountMl) ml")"
                + (request.drink.isEmpty ? "" : " \(request.drink.terminalSafe)") + " \(when(request.atUnixMs))"
        case .edit:
            guard let request = try? WaterV1.EditWaterRequest(serializedBytes: write.request) else { break }
            let amount = request.amountMl == 0 ? "" : " to \(request.amountMl) ml"
            let time = request.atUnixMs == 0 ? "" : " \(when(request.atUnixMs))"
            return "change drink \(Format.shortID(request.entryID))\(amount)\(time)"
        case .remove:
            guard let request = try? WaterV1.DeleteWaterRequest(serializedBytes: write.request) else { break }
            return "remove drink \(Format.shortID(request.entryID))"
        case .habitCheck, .habitUncheck:
            guard let request = try? WaterV1.CheckHabitRequest(serializedBytes: write.request) else { break }
            return "\(write.kind == .habitCheck ? "check" : "uncheck") \(habit(request.habitID)) on \(request.date)"
        case .todoAdd:
            guard let request = try? WaterV1.AddTodoRequest(serializedBytes: write.request) else { break }
            return "add \"\(request.text)\" to the list"
        case .todoDone, .todoUndone:
            guard let request = try? WaterV1.SetTodoDoneRequest(serializedBytes: write.request) else { break }
            return "mark \(item(request.itemID)) \(request.done ? "done" : "not done")"
        }
        return write.kind.rawValue
    }
}

/// What sending the outbox did.
struct OutboxReport {
    var sent: [Outbox.Write] = []
    var refused: [(Outbox.Write, String)] = []
    /// Files that did not read, kept aside.
    var damaged: [String] = []
    /// Writes left because the server went away while sending.
    var stillWaiting = 0
    /// Writes left because the session has expired.
    var waitingForLogin = 0

    /// Says what happened on standard error, beside the command's own output (nothing when
    /// nothing happened).
    func tell(_ invocation: Invocation) {
        if !sent.isEmpty {
            Terminal.error(
                "water-client: sent \(sent.count) write\(sent.count == 1 ? "" : "s") saved on this computer")
        }
        let words = refused.isEmpty ? nil : invocation.writeWords()
        for (write, reason) in refused {
            Terminal.error(
                "water-client: the server refused a write saved on this computer (\(words!(write))): "
                    + "\(reason.terminalSafe); water-client outbox shows it, to retry or drop")
        }
        for path in damaged {
            Terminal.error("water-client: an outbox file does not read and was kept aside in \(path)")
        }
        if waitingForLogin > 0 {
            Terminal.error(
                "water-client: \(waitingForLogin) write\(waitingForLogin == 1 ? "" : "s") saved on this computer "
                    + "wait for you to log in again (water-client login)")
        }
    }
}

/// What a write kept in the outbox prints with --json.
struct QueuedJSON<Request: Encodable>: Encodable {
    var queued: Bool
    var kind: String
    var queuedAtUnixMs: Int64
    var request: Request

    enum CodingKeys: String, CodingKey {
        case queued, kind, request
        case queuedAtUnixMs = "queued_at_unix_ms"
    }
}

extension Error {
    /// The server could not be reached, or the connection was lost before its answer: what a
    /// write may wait in the outbox for. An answer from the server is never this.
    var isUnreachable: Bool {
        guard let error = self as? WaterError else { return false }
        return error.code == .unavailable || error.code == .deadlineExceeded
    }
}
