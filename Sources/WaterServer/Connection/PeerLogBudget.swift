/// How many lines what peers do may put in the log: at most ``Limits/perAddress`` in a window
/// from one address and ``Limits/total`` from everyone, as the kernel's `printk_ratelimit`
/// bounds its messages. Lines over the limit are counted instead, and the first line logged in
/// a later window comes with that count (``Verdict/log(after:)``), so nothing goes unsaid and
/// no device fills the SD card: a device with no account made 36 000-55 000 `call failed`
/// lines a second before (issue 30). Socket-free, clock handed in.
struct PeerLogBudget {
    struct Limits: Sendable, Equatable {
        /// Nanoseconds a window lasts.
        var window: UInt64
        /// Lines from one address in a window.
        var perAddress: Int
        /// Lines from everyone in a window.
        var total: Int
        /// Addresses counted one by one in a window; the ones after share one count, so the
        /// table stays this size however many addresses a device has (IPv6 gives it plenty).
        var addressesCounted: Int

        /// 10 lines a window from an address, 30 from everyone, a window of 10 s: at most 3
        /// lines a second (a usual line is under 200 bytes: about 50 MB a day, which journald's
        /// own size cap rotates) whatever the peers do.
        static let standard = Limits(window: 10_000_000_000, perAddress: 10, total: 30, addressesCounted: 256)
    }

    /// The lines left out in the windows before a line that is logged.
    struct Suppressed: Equatable, Sendable {
        var lines = 0
        /// The addresses that went over their share.
        var addresses = 0
    }

    enum Verdict: Equatable {
        /// Log the line, after a line that says how many were left out before it (if any).
        case log(after: Suppressed?)
        /// Leave it out; it is counted.
        case suppress
    }

    let limits: Limits
    private var windowStart: UInt64?
    private var logged = 0
    private var byAddress: [String: Int] = [:]
    /// Counted this window, and not yet reported.
    private var suppressed = Suppressed()
    /// The addresses past the first ``Limits/addressesCounted`` of a window, counted as one.
    private static let otherAddresses = ""

    init(limits: Limits = .standard) {
        precondition(limits.window > 0 && limits.perAddress > 0 && limits.total > 0 && limits.addressesCounted > 0)
        self.limits = limits
    }

    /// A line about what `host` did is to be logged `now`.
    mutating func line(from host: String, now: UInt64) -> Verdict {
        if windowStart.map({ now >= $0 + limits.window }) ?? true {
            windowStart = now
            logged = 0
            byAddress.removeAll(keepingCapacity: true)
        }
        let key = byAddress[host] != nil || byAddress.count < limits.addressesCounted ? host : Self.otherAddresses
        let count = byAddress[key, default: 0] + 1
        byAddress[key] = count
        guard count <= limits.perAddress, logged < limits.total else {
            suppressed.lines += 1
            if count == limits.perAddress + 1 { suppressed.addresses += 1 }
            return .suppress
        }
        logged += 1
        defer { suppressed = Suppressed() }
        return .log(after: suppressed.lines > 0 ? suppressed : nil)
    }
}
