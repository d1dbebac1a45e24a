import WaterProtocol

/// How logins and password changes meet ``LoginThrottle``: once at the door, counting nothing,
/// and once in the hash queue, where the attempt is admitted (and counted) or refused.
extension AccountService {
    /// At the door: an address that must wait for `username` takes no place in the hash queue.
    func refuseWhileThrottled(_ username: String, _ call: CallContext) throws(WaterError) {
        if let until = throttle.retryAfter(username, from: call.peerHost, now: call.now) {
            throw throttled(username, call, until: until)
        }
    }

    /// In the hash queue, once any earlier attempt for `username` from this address has been
    /// answered: the attempt counts as a failure from now until it is settled. Nil, with the
    /// refusal replied, when it may not be hashed.
    func admit<Response>(_ username: String, _ call: CallContext, reply: Reply<Response>)
        -> LoginThrottle.Attempt?
    {
        switch throttle.admit(username, from: call.peerHost, now: call.now) {
        case .admitted(let attempt): return attempt
        case .waitUntil(let until): reply(.failure(throttled(username, call, until: until)))
        case .alreadyInFlight:
            reply(
                .failure(
                    WaterError(
                        .resourceExhausted,
                        "a password for \(quotedPeerText(username)) from \(call.peerHost) is being checked; "
                            + "wait for its answer")))
        }
        return nil
    }

    func throttled(_ username: String, _ call: CallContext, until: Int64) -> WaterError {
        let seconds = (until - call.now + 999) / 1000
        return WaterError(
            .resourceExhausted,
            "too many wrong passwords for \(quotedPeerText(username)) from \(call.peerHost); try again in \(seconds) s")
    }
}
