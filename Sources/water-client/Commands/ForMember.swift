import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `--for NAME`: a command acting for another member (a child of the caller's, or anyone for an
/// admin). The server decides who may; the client only carries the name and keeps what it
/// hears for someone else out of the caller's own cache.
extension Invocation {
    /// The member named by `--for`, or "" for the caller. Read once per command, here.
    mutating func forMember() throws -> String {
        let name = try arguments.option("for") ?? ""
        guard name.isEmpty || AccountBook.isValidUsername(name) else {
            throw UsageError("--for takes a member's username, got \"\(name.terminalSafe)\"")
        }
        return name == session()?.username ? "" : name
    }

    /// The zone of the member a command acts for: the caller's own, or (online) the member's as
    /// the server has it; away from the server, the caller's.
    func zone(for member: String, _ client: WaterClient?) throws -> MemberTimeZone {
        guard !member.isEmpty, let client else { return try memberZone(client) }
        let name = try client.call(WaterV1.GetSettingsRequest(forMember: member)).settings?.timeZone ?? ""
        return ZoneInfo.system.zone(named: name) ?? Self.localZone
    }

    /// A connected client, or nil away from the server when `member` is the caller, whose
    /// figures this computer keeps; for another member, being away is an error
    /// (``refuseOffline(for:)``).
    func reachableClient(for member: String) throws -> WaterClient? {
        guard let client = try reachableClient() else {
            try refuseOffline(for: member)
            return nil
        }
        return client
    }

    /// Refuses to show another member's figures from this computer's cache, which holds only
    /// the caller's.
    func refuseOffline(for member: String) throws {
        guard !member.isEmpty else { return }
        throw WaterError(
            .unavailable,
            "the server cannot be reached, and this computer keeps only your own figures, not \(member)'s; "
                + "try again when it can be reached")
    }

    /// Changes the cache only when the command acted for the caller: what the server says of
    /// another member is never taken for the caller's own figures.
    func updateCache(for member: String, _ change: (inout StatusCache) throws -> Void) rethrows {
        guard member.isEmpty else { return }
        try updateCache(change)
    }
}
