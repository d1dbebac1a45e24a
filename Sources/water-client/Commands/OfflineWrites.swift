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
    /// Returns what `change` returned (nil when no one is logged in).
    @discardableResult
    func updateCache<Result>(_ change: (inout StatusCache) throws -> Result) rethrows -> Result? {
        guard let session = session(), let cachePath else { return nil }
        return try LocalFile.withLock(cachePath + ".lock") {
            var cache = cachedStatus() ?? StatusCache(server: session.server, username: session.username)
            let result = try change(&cache)
            if let zone = session.timeZone { cache.timeZone = zone }
            let zone = ZoneInfo.system.zone(named: cache.timeZone) ?? Self.localZone
            let waiting = waitingWrites()
            let today = cache.today(adding: waiting, zone: zone, now: UnixTime.nowMilliseconds())
            cache.save(cachePath, today: today, waiting: waiting.count)
            return result
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
        Outbox.SendReport(damaged: damaged).tell(self)
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
    /// same write) was kept in the outbox instead, and said so.
    func callOrQueue<Request: UnaryRPCRequest>(
        _ client: WaterClient?, _ request: Request, queued: QueuedWrite
    ) throws -> Request.Response? {
        if let client {
            do {
                return try client.call(request)
            } catch {
                // Lost on the way: it may have arrived, and sending it again changes nothing. Or
                // the server could not take it now (its clock is behind): it says why.
                guard error.isUnreachable else { throw error }
                try queue(queued, because: error)
                return nil
            }
        }
        try queue(queued)
        return nil
    }

    /// Keeps `write` in the outbox (synced), as made for later, and says so in one line; refuses
    /// it as the server would when it can only be refused (``QueuedWrite/check(now:zone:)``). The
    /// cache is read once, under its lock: for the usual cup, the names in the line, and the
    /// figures `prompt` shows, which count it. `reason`: why a server that was reached did not
    /// take it, which the line gives.
    func queue(_ write: QueuedWrite, because reason: WaterError? = nil) throws {
        guard let session = session() else { throw notLoggedIn() }
        let zone = try memberZone(nil)
        let outbox = self.outbox
        guard
            let (kept, words): (Outbox.Write, String) = try updateCache({ cache in
                let now = UnixTime.nowMilliseconds()
                let write = write.keptForLater(now: now, zone: zone, usualCupMl: cache.usualCupMl)
                // What the server would refuse whatever it holds is refused now (65), not kept.
                try write.check(now: now, zone: zone)
                let kept = try outbox.add(write, server: session.server, username: session.username, now: now)
                return (kept, WriteWords(zone: zone, cache: cache)(kept))
            })
        else { throw notLoggedIn() }
        if json {
            Terminal.print(
                JSONOutput.encode(
                    QueuedJSON(
                        queued: true, kind: kept.kind.rawValue, queuedAtUnixMs: kept.queuedAtUnixMs,
                        request: kept.request)))
        } else {
            let why = reason.map { "; the server at \(session.server) did not take it: \($0.message)" } ?? ""
            Terminal.print(
                "saved on this computer: \(words)\(why); it will be sent when the server at \(session.server) "
                    + (reason == nil ? "is reachable" : "takes it"))
        }
    }

    /// Sends what the outbox holds for this member and server (``Outbox/send(for:username:with:cache:keep:)``).
    func sendQueued(_ client: WaterClient) -> Outbox.SendReport {
        guard let session = session() else { return Outbox.SendReport() }
        return outbox.send(
            for: session.server, username: session.username, with: client,
            cache: { cachedStatus() ?? StatusCache(server: session.server, username: session.username) },
            keep: { cache in updateCache { $0 = cache } })
    }

    /// What puts queued writes in words, made once for a list of them: the member's zone and
    /// what this computer knows of their habits and list.
    func writeWords() -> WriteWords {
        WriteWords(zone: (try? memberZone(nil)) ?? Self.localZone, cache: cachedStatus())
    }
}

/// Queued writes in words (``QueuedWrite/words(zone:cache:)``), neutralised for the terminal:
/// the names and texts in them are members' (and a server's).
struct WriteWords {
    let zone: MemberTimeZone
    let cache: StatusCache?

    func callAsFunction(_ write: Outbox.Write) -> String {
        write.request.words(zone: zone, cache: cache).terminalSafe
    }
}

extension Outbox.SendReport {
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
struct QueuedJSON: Encodable {
    var queued: Bool
    var kind: String
    var queuedAtUnixMs: Int64
    var request: QueuedWrite
}
