import WaterLog
import WaterSync
import WaterTransport

/// Where the server logs what peers do (a refused or failed call, a connection error, a failed
/// login), within a ``PeerLogBudget``: connections on the loop and handlers on the password
/// pool both log here, so the budget is this object's, behind its mutex. Lines about the
/// server's own doing (a failed sync, a start, a snapshot) go to the logger directly.
final class PeerLog: Sendable {
    private let logger: Logger
    /// The one owner of the counts.
    private let budget: Locked<PeerLogBudget>

    init(logger: Logger, limits: PeerLogBudget.Limits = .standard) {
        self.logger = logger
        budget = Locked(PeerLogBudget(limits: limits))
    }

    /// Logs the line, unless `host` or everyone has had their share of this window; then it is
    /// only counted, and the next line logged follows a `log lines suppressed` line with the count.
    func log(
        _ level: Logger.Level, _ message: String, from host: String, _ metadata: KeyValuePairs<String, String> = [:]
    ) {
        guard level >= logger.minimumLevel else { return }
        let verdict = budget.withLock { $0.line(from: host, now: EventLoop.now()) }
        guard case .log(let suppressed) = verdict else { return }
        if let suppressed {
            logger.warning(
                "log lines suppressed",
                [
                    "lines": "\(suppressed.lines)", "addresses": "\(suppressed.addresses)",
                    "reason": "over the rate limit",
                ])
        }
        logger.log(level, message, metadata)
    }
}
