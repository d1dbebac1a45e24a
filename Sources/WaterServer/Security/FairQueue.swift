/// Work that waits for a password hash, served in turn by address (round robin), so a device's
/// queued guesses delay only that device: a member on a quiet address waits behind at most one
/// job of each other address, however many that address has queued (the per-source fairness
/// of OpenSSH's `PerSourcePenalties` and nginx's `limit_conn`, applied to the hash queue).
///
/// Each address holds at most `maximumPerAddress` jobs, waiting and running together; more are
/// refused, never queued. Within an address, a job may name a *lane* (the username a login is
/// for): jobs of one lane run one at a time, in order, so logins pipelined for one account are
/// checked one after the other, each after the throttle has counted the one before.
///
/// A value with no locking of its own: ``PasswordHasher`` keeps it under its lock.
struct FairQueue<Job> {
    /// A job taken to run, and what ``finished(_:)`` releases when it is done.
    struct Ticket: Hashable {
        let address: String
        let lane: String?
    }

    private struct Waiting {
        let lane: String?
        let job: Job
    }

    private struct LaneKey: Hashable {
        let address: String
        let lane: String
    }

    let maximumPerAddress: Int
    /// Each address's jobs not yet taken, oldest first.
    private var waiting: [String: [Waiting]] = [:]
    /// The addresses with waiting jobs, in the order they are served next.
    private var turns: [String] = []
    /// Each address's jobs, waiting and running: what the bound counts.
    private var load: [String: Int] = [:]
    private var busyLanes: Set<LaneKey> = []

    init(maximumPerAddress: Int) {
        precondition(maximumPerAddress > 0)
        self.maximumPerAddress = maximumPerAddress
    }

    /// Jobs waiting or running from `address`.
    func load(of address: String) -> Int {
        load[address, default: 0]
    }

    /// Whether a job could be taken now (one waits whose lane is free).
    var hasRunnableJob: Bool {
        turns.contains { runnableIndex(of: $0) != nil }
    }

    /// Queues `job`; false, and nothing queued, when `address` already has its maximum.
    mutating func enqueue(_ job: Job, from address: String, lane: String? = nil) -> Bool {
        guard load(of: address) < maximumPerAddress else { return false }
        load[address, default: 0] += 1
        if waiting[address, default: []].isEmpty { turns.append(address) }
        waiting[address, default: []].append(Waiting(lane: lane, job: job))
        return true
    }

    /// The next job to run: the oldest runnable job of the first address in turn that has one.
    /// That address then goes to the back of the turns; one whose jobs all wait for a busy lane
    /// keeps its place.
    mutating func next() -> (job: Job, ticket: Ticket)? {
        for (turn, address) in turns.enumerated() {
            guard let index = runnableIndex(of: address) else { continue }
            let taken = waiting[address]!.remove(at: index)
            turns.remove(at: turn)
            if waiting[address]!.isEmpty {
                waiting[address] = nil
            } else {
                turns.append(address)
            }
            if let lane = taken.lane { busyLanes.insert(LaneKey(address: address, lane: lane)) }
            return (taken.job, Ticket(address: address, lane: taken.lane))
        }
        return nil
    }

    /// The job `ticket` was given for is done: its address's count and its lane are released.
    mutating func finished(_ ticket: Ticket) {
        if let lane = ticket.lane { busyLanes.remove(LaneKey(address: ticket.address, lane: lane)) }
        let remaining = load(of: ticket.address) - 1
        load[ticket.address] = remaining > 0 ? remaining : nil
    }

    private func runnableIndex(of address: String) -> Int? {
        waiting[address]?.firstIndex { entry in
            entry.lane.map { !busyLanes.contains(LaneKey(address: address, lane: $0)) } ?? true
        }
    }
}
