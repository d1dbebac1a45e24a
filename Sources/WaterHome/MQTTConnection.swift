import CMosquitto
import Dispatch
import Glibc
import WaterLog
import WaterSync

/// libmosquitto needs its one-time setup before the first handle.
private let libraryReady: Bool = {
    mosquitto_lib_init()
    return true
}()

/// The server's connection to the MQTT broker, through libmosquitto (never a hand-written client).
///
/// ## Who owns what
///
/// - **The handle** belongs to libmosquitto, in threaded mode (`mosquitto_threaded_set`): the
///   connection's own thread connects, runs `mosquitto_loop` (libmosquitto's I/O, with the
///   relay) and waits between attempts; ``publish(_:_:)``, from the publisher's queue, only
///   queues a copied packet under libmosquitto's lock and wakes that thread. The event loop never
///   calls in here.
/// - **The broker's socket** is a ``BrokerRelay``'s, one per connection, on a thread of its own.
/// - **``state``** (connected, stopping, the wait before the next attempt, messages not yet
///   acknowledged) is this object's, under its lock.
///
/// A broker that is down or refuses is tried again after 1, 2, 4 ... 60 s. The will is `offline`
/// on the status topic, retained; `online` is published there at every connect.
///
/// ## What the broker can cost the server
///
/// The broker is a peer like any other (issue 30). libmosquitto reads from a ``BrokerRelay``,
/// which checks every packet the broker sends by its header before libmosquitto reads it: at most
/// ``maximumPacketLength`` bytes, and no PUBLISH at QoS 1 or 2. The server speaks MQTT 5 (3.1.1
/// with a broker that has no 5), tells the broker that packet limit and a receive maximum of 1 in
/// its CONNECT, subscribes at QoS 0 only to learn what its own topics hold retained at each
/// connect, and unsubscribes once the broker has acknowledged that. A broker that sends anything
/// else is disconnected and tried again as one that is down.
final class MQTTConnection: @unchecked Sendable {  // the handle is libmosquitto's, locked by it
    private struct State {
        var isConnected = false
        var isStopping = false
        var retrySeconds = 1
        /// The broker accepted this connection, so the next wait starts again at 1 s (unless the
        /// relay refused what it sent).
        var wasAccepted = false
        /// MQTT 5 until a broker says it has only 3.1.1.
        var speaksMQTT5 = true
        /// Between the subscription to ``retainedTopics`` and its end: retained messages are
        /// what the broker holds; none is taken at any other time.
        var isListening = false
        /// The subscription's message id, whose SUBACK ends it.
        var subscription: Int32 = 0
        /// QoS 1 messages sent and not acknowledged: a broker that stops acknowledging is sent
        /// nothing more (``publish(_:_:)`` says so) rather than queued for without bound.
        var unacknowledged = 0
    }

    /// Publishing stops at this many unacknowledged messages (a household's state is ~40): the
    /// bound on libmosquitto's queue of outgoing messages.
    static let maximumUnacknowledged = 500
    /// Outgoing QoS 1 messages in flight at once (fewer if the broker's receive maximum says so);
    /// the rest wait in libmosquitto's queue, which ``maximumUnacknowledged`` bounds.
    static let sendMaximum: Int32 = 20
    /// The largest packet the broker may send, fixed header included: a retained message of
    /// ours (at most ``maximumRetainedPayload`` bytes) with its topic, with room to spare.
    static let maximumPacketLength = 8192
    private static let keepAliveSeconds: Int32 = 30
    /// From mqtt_protocol.h, which CMosquitto's shim does not include.
    private static let maximumPacketSizeProperty: Int32 = 39  // MQTT_PROP_MAXIMUM_PACKET_SIZE
    private static let unsupportedProtocolVersion: Int32 = 132  // MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION
    private static let noLocal: Int32 = 0x04  // MQTT_SUB_OPT_NO_LOCAL: our own messages are not sent back

    let settings: MQTTSettings
    private let handle: OpaquePointer
    /// CONNECT's MQTT 5 properties: the maximum packet size.
    private var connectProperties: OpaquePointer?
    /// `--mqtt-tls`: what the relay checks the broker against.
    private let tls: BrokerTLS?
    private let logger: Logger
    private let state = Locked(State())
    /// Told (on the connection's thread) each time the broker accepts or loses the connection.
    private let connectionChanged: @Sendable (_ isConnected: Bool) -> Void
    /// Told (on the connection's thread) of each retained message the broker holds on
    /// ``retainedTopics``: topic and payload, at most ``maximumRetainedPayload`` bytes.
    private let retainedFound: @Sendable (_ topic: String, _ payload: [UInt8]) -> Void
    /// Subscribed to at each connect, to learn what an earlier run left retained there.
    private let retainedTopics: [String]
    /// A retained payload longer than this is not ours (a discovery config is ~500 bytes).
    static let maximumRetainedPayload = 4096
    /// Cuts the wait between attempts short when stopping.
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    var statusTopic: String { "\(settings.prefix)/status" }

    /// Sets the handle up (login, TLS, will); nothing connects until ``start()``.
    /// - Throws: ``MQTTError`` when libmosquitto refuses a setting (a CA file it cannot read).
    init(
        settings: MQTTSettings, logger: Logger, retainedTopics: [String],
        retainedFound: @escaping @Sendable (_ topic: String, _ payload: [UInt8]) -> Void,
        connectionChanged: @escaping @Sendable (_ isConnected: Bool) -> Void
    ) throws(MQTTError) {
        precondition(libraryReady)
        guard let handle = mosquitto_new("water-server-\(settings.prefix)", true, nil) else {
            throw MQTTError("libmosquitto could not make a client (out of memory)")
        }
        self.handle = handle
        self.settings = settings
        self.logger = logger
        self.connectionChanged = connectionChanged
        self.retainedTopics = retainedTopics
        self.retainedFound = retainedFound
        do {
            tls = try settings.tls ? BrokerTLS(certificateAuthority: settings.certificateAuthority) : nil
            try configure()
        } catch {
            mosquitto_destroy(handle)
            mosquitto_property_free_all(&connectProperties)
            throw error
        }
    }

    private func configure() throws(MQTTError) {
        // Every call below returns MOSQ_ERR_SUCCESS, or MOSQ_ERR_INVAL / MOSQ_ERR_NOMEM for a
        // bad argument or no memory; a TLS CA file that cannot be read is MOSQ_ERR_INVAL too.
        try check(mosquitto_threaded_set(handle, true), "threaded mode")
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "MQTT 5")
        // No QoS 1 or 2 message is expected (the relay refuses them first); 1 is the least allowed.
        try check(mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, 1), "the receive maximum")
        try check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Self.sendMaximum), "the send maximum")
        try check(
            mosquitto_property_add_int32(
                &connectProperties, Self.maximumPacketSizeProperty, UInt32(Self.maximumPacketLength)),
            "the maximum packet size")
        try check(
            mosquitto_will_set(handle, statusTopic, 7, "offline", 1, true), "the last will")
        if let username = settings.username {
            try check(mosquitto_username_pw_set(handle, username, settings.password), "the login")
        }
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, object, code in
            guard let object else { return }
            Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue().brokerAnswered(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, object, code in
            guard let object else { return }
            Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue().lost(code)
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let object, let message, message.pointee.retain, let topic = message.pointee.topic,
                let payload = message.pointee.payload,
                (1...MQTTConnection.maximumRetainedPayload).contains(Int(message.pointee.payloadlen))
            else { return }
            let connection = Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue()
            guard connection.state.withLock({ $0.isListening }) else { return }
            let bytes = Array(UnsafeRawBufferPointer(start: payload, count: Int(message.pointee.payloadlen)))
            connection.retainedFound(String(cString: topic), bytes)
        }
        mosquitto_subscribe_callback_set(handle) { _, object, mid, _, _ in
            guard let object else { return }
            Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue().subscribed(mid)
        }
        mosquitto_unsubscribe_callback_set(handle) { _, object, _ in
            guard let object else { return }
            Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue().state.withLock {
                $0.isListening = false
            }
        }
        mosquitto_publish_callback_set(handle) { _, object, _ in
            guard let object else { return }
            Unmanaged<MQTTConnection>.fromOpaque(object).takeUnretainedValue().state.withLock {
                $0.unacknowledged = max($0.unacknowledged - 1, 0)
            }
        }
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError("could not set up \(what): \(String(cString: mosquitto_strerror(code)))")
        }
    }

    /// Starts the connection's thread, which connects and keeps connecting. It holds this object
    /// until ``stop()``.
    func start() {
        DispatchQueue(label: "water.mqtt", qos: .utility).async { self.run() }
    }

    /// Whether the broker has accepted the connection and not lost it since.
    var isConnected: Bool { state.withLock { $0.isConnected } }

    /// Queues `payload` for `topic`, QoS 1, retained unless `retain` is false (a reminder is an
    /// event, not a state), and returns at once (libmosquitto copies it; the connection's thread
    /// sends it). False when not connected or when the broker has
    /// stopped acknowledging: nothing is queued then, and everything is sent again at the next connect.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool = true) -> Bool {
        let mayPublish = state.withLock { state in
            guard state.isConnected, state.unacknowledged < Self.maximumUnacknowledged else { return false }
            state.unacknowledged += 1
            return true
        }
        guard mayPublish else { return false }
        // - MOSQ_ERR_SUCCESS: queued. MOSQ_ERR_NO_CONN: lost meanwhile (sent again at the connect).
        // - MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_MALFORMED_UTF8: our topics and payloads are neither.
        let code = payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
        }
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            state.withLock { $0.unacknowledged = max($0.unacknowledged - 1, 0) }
            return false
        }
        return true
    }

    /// Says `offline` and disconnects (a clean disconnect sends no will), then waits at most
    /// `timeout` for the connection's thread to end.
    func stop(timeout: DispatchTimeInterval = .seconds(2)) {
        let wasConnected = state.withLock { state in
            state.isStopping = true
            return state.isConnected
        }
        if wasConnected {
            _ = Array("offline".utf8).withUnsafeBytes { bytes in
                mosquitto_publish(handle, nil, statusTopic, Int32(bytes.count), bytes.baseAddress, 1, true)
            }
            mosquitto_disconnect(handle)
        }
        wake.signal()
        // A thread still stuck in a connect to a broker that does not answer keeps the handle.
        if finished.wait(timeout: .now() + timeout) == .success {
            mosquitto_destroy(handle)
            mosquitto_property_free_all(&connectProperties)
        }
    }

    /// The connection's thread: connect, run libmosquitto's loop until the connection ends, wait
    /// (growing), again; until ``stop()``.
    private func run() {
        let broker = "\(settings.broker)"
        while !state.withLock({ $0.isStopping }) {
            let (reason, wasRefused) = connectAndServe()
            let retry = state.withLock { state -> Int? in
                state.isConnected = false
                guard !state.isStopping else { return nil }
                // A broker whose bytes were refused waits longer each time, even if it accepted.
                if state.wasAccepted && !wasRefused { state.retrySeconds = 1 }
                state.wasAccepted = false
                defer { state.retrySeconds = min(state.retrySeconds * 2, 60) }
                return state.retrySeconds
            }
            guard let retry else { break }
            logger.warning(
                "mqtt broker not connected", ["broker": broker, "reason": reason, "retry.s": "\(retry)"])
            _ = wake.wait(timeout: .now() + .seconds(retry))
        }
        finished.signal()
    }

    /// One connection: the relay to the broker, libmosquitto connected through it, its loop
    /// until the connection ends. Why it ended, and whether the relay refused what the broker sent.
    private func connectAndServe() -> (reason: String, wasRefused: Bool) {
        let relay: BrokerRelay
        do {
            relay = try BrokerRelay(settings.broker, tls: tls, maximumPacketLength: Self.maximumPacketLength)
        } catch {
            return (error.description, false)
        }
        let properties = state.withLock { $0.speaksMQTT5 } ? connectProperties : nil
        // To the relay's unix socket (port 0): at once, on this thread only.
        // - MOSQ_ERR_SUCCESS: connected; the CONNACK arrives in the loop (brokerAnswered).
        // - MOSQ_ERR_ERRNO: the system's reason is in errno. MOSQ_ERR_INVAL: a bug (our properties).
        var code = mosquitto_connect_bind_v5(handle, relay.path, 0, Self.keepAliveSeconds, nil, properties)
        var reason = code == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : nil
        if code == MOSQ_ERR_SUCCESS.rawValue {
            do {
                try relay.accept()
                relay.start()
                // Until the connection ends: a lost broker, a refused login, the relay refusing
                // what the broker sent, or the disconnect stop() sends.
                repeat { code = mosquitto_loop(handle, 1000, 1) } while code == MOSQ_ERR_SUCCESS.rawValue
            } catch {
                reason = error.description
                mosquitto_disconnect(handle)
            }
        }
        switch relay.finish() {
        case .refused(let refusal): return ("refused what it sent: \(refusal)", true)
        case .failed(let failure): return (failure, false)
        case nil: return (reason ?? String(cString: mosquitto_strerror(code)), false)
        }
    }

    /// The broker's CONNACK: 0 accepted, else its reason (bad login, not authorised; an MQTT 5
    /// reason code, or 3.1.1's once a broker had no MQTT 5).
    private func brokerAnswered(_ code: Int32) {
        guard code == 0 else {
            let wasMQTT5 = state.withLock { state in
                defer { if code == Self.unsupportedProtocolVersion { state.speaksMQTT5 = false } }
                return state.speaksMQTT5
            }
            if wasMQTT5 && code == Self.unsupportedProtocolVersion {
                // Takes effect at the next connect; the relay's checks are the same for 3.1.1.
                _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            }
            logger.warning(
                "mqtt broker refused the connection",
                [
                    "broker": "\(settings.broker)",
                    "reason": String(
                        cString: wasMQTT5 ? mosquitto_reason_string(code) : mosquitto_connack_string(code)),
                ])
            return
        }
        state.withLock { state in
            state.isConnected = true
            state.wasAccepted = true
            state.unacknowledged = 0
            state.isListening = true
        }
        logger.info("mqtt connected", ["broker": "\(settings.broker)", "prefix": settings.prefix])
        publish(statusTopic, Array("online".utf8))
        // At QoS 0: a broker has no business sending this client anything at QoS 1 or 2. No local
        // (MQTT 5; libmosquitto drops it for 3.1.1): what we publish meanwhile is not sent back.
        // - MOSQ_ERR_SUCCESS, or MOSQ_ERR_NO_CONN when lost meanwhile (the next connect asks again).
        var topics = retainedTopics.map { strdup($0) }
        defer { topics.forEach { free($0) } }
        var mid: Int32 = 0
        _ = mosquitto_subscribe_multiple(handle, &mid, Int32(topics.count), &topics, 0, Self.noLocal, nil)
        state.withLock { $0.subscription = mid }
        connectionChanged(true)
    }

    /// A SUBACK. For the subscription to ``retainedTopics``, the broker has queued what it holds
    /// there by now (mosquitto sends it right after the SUBACK), so it all comes before the
    /// UNSUBACK of the unsubscription sent here: nothing else there is needed.
    private func subscribed(_ mid: Int32) {
        guard state.withLock({ $0.subscription == mid }) else { return }
        var topics = retainedTopics.map { strdup($0) }
        defer { topics.forEach { free($0) } }
        // - MOSQ_ERR_SUCCESS, or MOSQ_ERR_NO_CONN when lost meanwhile (the next connect subscribes anew).
        _ = mosquitto_unsubscribe_multiple(handle, nil, Int32(topics.count), &topics, nil)
    }

    /// The connection ended (0: the disconnect ``stop()`` asked for).
    private func lost(_ code: Int32) {
        let (wasConnected, isStopping) = state.withLock { state in
            defer { state.isConnected = false }
            return (state.isConnected, state.isStopping)
        }
        guard wasConnected, !isStopping else { return }
        logger.warning(
            "mqtt disconnected",
            ["broker": "\(settings.broker)", "reason": String(cString: mosquitto_strerror(code))])
        connectionChanged(false)
    }
}

/// What went wrong setting up the MQTT client.
public struct MQTTError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
