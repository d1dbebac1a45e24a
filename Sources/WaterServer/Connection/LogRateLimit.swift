/// At most one log line per ``interval`` about one kind of event, each saying how many events
/// it stands for: a device that makes the event happen as fast as it can (refused
/// connections) or a descriptor shortage (EMFILE) fills no SD card. Socket-free, clock handed in.
struct LogRateLimit {
    /// Nanoseconds between two lines.
    let interval: UInt64
    private var lastLineAt: UInt64?
    private var unlogged = 0

    init(interval: UInt64) {
        self.interval = interval
    }

    /// The event happened `now`: how many events a line now stands for (this one and those not
    /// logged since the last line), or nil when it is too soon for a line.
    mutating func event(now: UInt64) -> Int? {
        unlogged += 1
        if let lastLineAt, now < lastLineAt + interval { return nil }
        lastLineAt = now
        defer { unlogged = 0 }
        return unlogged
    }
}
