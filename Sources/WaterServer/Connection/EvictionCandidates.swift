/// Connections that may be closed to make room for a new one, kept so that the one to close is
/// found without looking at every connection: each address's in the order they were admitted
/// (ids only grow), and the addresses by how many they hold. The one to close belongs to an
/// address holding the most (``victim(isIdle:)``), so a device that opens connections as fast as
/// it can closes its own, never the one connection of a member's device.
///
/// Socket-free; ``ConnectionAdmission`` keeps one for the connections that have not logged in
/// and one for those still in their handshake.
struct EvictionCandidates {
    /// Each address's connections, oldest first; an address holding none is not here.
    private var byAddress: [String: [UInt64]] = [:]
    /// `holders[n]`: the addresses holding exactly `n` (`holders[0]` stays empty). The last
    /// set is never empty unless it is the only one: its index is the most any address holds.
    private var holders: [Set<String>] = [[]]
    /// Connections held, by every address.
    private(set) var count = 0

    /// How many connections `host` holds.
    func count(of host: String) -> Int { byAddress[host]?.count ?? 0 }

    /// Connection `id` from `host` is a candidate from now on; `id` is greater than every id
    /// inserted before.
    mutating func insert(_ id: UInt64, from host: String) {
        var ids = byAddress.removeValue(forKey: host) ?? []
        precondition(ids.last.map { $0 < id } ?? true, "connection ids only grow")
        ids.append(id)
        moveHolder(host, from: ids.count - 1, to: ids.count)
        byAddress[host] = ids
        count += 1
    }

    /// Connection `id` from `host` is no longer a candidate (closed, logged in, or past its
    /// handshake); nothing happens when it was not one.
    mutating func remove(_ id: UInt64, from host: String) {
        // At most an address's share of ids to look through (32 by default).
        guard var ids = byAddress[host], let index = ids.firstIndex(of: id) else { return }
        byAddress[host] = nil
        ids.remove(at: index)
        moveHolder(host, from: ids.count + 1, to: ids.count)
        if !ids.isEmpty { byAddress[host] = ids }
        count -= 1
    }

    /// The connection to close: of the addresses holding the most, the oldest idle connection
    /// (`isIdle`: no call in flight), or the oldest when none of theirs is idle; nil when there
    /// is no candidate. Looks at the addresses tied for the most (and at each, past its busy
    /// connections), not at everyone.
    func victim(isIdle: (UInt64) -> Bool) -> UInt64? {
        var oldest: UInt64?
        var oldestIdle: UInt64?
        for host in holders[holders.count - 1] {
            guard let ids = byAddress[host], let first = ids.first else { continue }
            oldest = min(oldest ?? first, first)
            if let idle = ids.first(where: isIdle) { oldestIdle = min(oldestIdle ?? idle, idle) }
        }
        return oldestIdle ?? oldest
    }

    /// `host` held `old` connections and holds `new` now (one more or one fewer).
    private mutating func moveHolder(_ host: String, from old: Int, to new: Int) {
        if old > 0 { holders[old].remove(host) }
        if new > 0 {
            if new == holders.count { holders.append([]) }
            holders[new].insert(host)
        }
        while holders.count > 1, holders[holders.count - 1].isEmpty { holders.removeLast() }
    }
}
