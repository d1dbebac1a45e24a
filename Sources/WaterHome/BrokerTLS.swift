import COpenSSL
import CWaterTLS
import Glibc

/// `--mqtt-tls`: what OpenSSL checks the broker against, shared by every connection (an
/// `SSL_CTX`, safe to share between threads once set up). TLS 1.2 or 1.3, the broker's
/// certificate verified against `--mqtt-ca` or the system's CAs, and its name against the
/// broker's host: what libmosquitto's `mosquitto_tls_set` did, done here because the server, not
/// libmosquitto, now reads the broker's bytes first (``BrokerRelay``).
final class BrokerTLS: @unchecked Sendable {  // SSL_CTX is read-only once set up
    private let context: OpaquePointer

    /// - Throws: ``MQTTError`` when the CA file cannot be loaded.
    init(certificateAuthority: String?) throws(MQTTError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw MQTTError("could not set up TLS: \(Self.lastError())")
        }
        self.context = context
        // SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are macros over SSL_CTX_ctrl: 1 is success.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        // A write may be taken in part, and retried from a buffer that has moved on.
        _ = SSL_CTX_ctrl(
            context, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // 1: loaded; 0: a file that is not a readable PEM certificate.
        let loaded =
            if let certificateAuthority {
                SSL_CTX_load_verify_locations(context, certificateAuthority, nil)
            } else {
                SSL_CTX_set_default_verify_paths(context)
            }
        guard loaded == 1 else {
            SSL_CTX_free(context)
            let what = certificateAuthority.map { "the CA in \($0) (is it a readable PEM file?)" } ?? "the system's CAs"
            throw MQTTError("could not set up TLS with \(what): \(Self.lastError())")
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A TLS client session on `descriptor` (connected, non-blocking) that expects `host`'s
    /// certificate: its name, or its address when `host` is one. The handshake is the caller's.
    func session(on descriptor: Int32, host: String) throws(MQTTError) -> OpaquePointer {
        guard let session = SSL_new(context) else { throw MQTTError("TLS: \(Self.lastError())") }
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        // Each returns 1 on success, 0 when out of memory. The server name (SNI) is copied.
        let named =
            isAddress
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), host) == 1
            : SSL_set1_host(session, host) == 1
                && host.withCString {
                    SSL_ctrl(
                        session, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                        UnsafeMutableRawPointer(mutating: $0))
                } == 1
        guard named, SSL_set_fd(session, descriptor) == 1 else {
            SSL_free(session)
            throw MQTTError("TLS: \(Self.lastError())")
        }
        SSL_set_connect_state(session)
        return session
    }

    /// OpenSSL's last error on this thread, or a verification failure, as one line.
    static func lastError(_ session: OpaquePointer? = nil) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        water_tls_last_error(&buffer, buffer.count)  // and clears the thread's error queue
        if let session, case let result = SSL_get_verify_result(session), result != X509_V_OK {
            return "the broker's certificate: \(String(cString: X509_verify_cert_error_string(result)))"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
