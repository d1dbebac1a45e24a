internal import CWaterTLS
import Glibc

/// Why TLS failed: OpenSSL's last error, or what this code found wrong.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// `what` failed, with OpenSSL's reason.
    static func openSSL(_ what: String) -> TLSError {
        var buffer = [CChar](repeating: 0, count: 256)
        water_tls_last_error(&buffer, buffer.count)
        return TLSError(
            "\(what): \(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
    }
}

/// The SHA-256 of a certificate (its DER bytes), written `SHA256:` and unpadded base64, as ssh
/// writes key fingerprints: what `water-server init` prints and `water-client` pins.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses `SHA256:` and 43 characters of base64 (padding allowed, and ignored).
    public init?(_ text: String) {
        guard text.hasPrefix("SHA256:"), let decoded = Base64.decode(String(text.dropFirst(7))) else { return nil }
        self.init(bytes: decoded)
    }

    /// The fingerprint of the PEM certificate at `path`.
    public init(certificateAt path: String) throws(TLSError) {
        var digest = [UInt8](repeating: 0, count: 32)
        guard water_tls_certificate_fingerprint(path, &digest) == 1 else {
            throw TLSError.openSSL("cannot read the certificate \(path)")
        }
        bytes = digest
    }

    public var description: String { "SHA256:" + Base64.encode(bytes) }
}

/// OpenSSL's TLS 1.3 configuration for one side, shared by every session it makes (OpenSSL's
/// `SSL_CTX` is safe to use from several threads once set up).
public final class TLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        water_tls_context_free(pointer)
    }

    /// A server's context from its PEM certificate (with any chain) and key.
    public static func server(certificate: String, key: String) throws(TLSError) -> TLSContext {
        guard let pointer = water_tls_server_context(certificate, key) else {
            throw TLSError.openSSL("cannot use the certificate \(certificate) with the key \(key)")
        }
        return TLSContext(pointer)
    }

    public static func client(verifyingWithSystemCAs: Bool) throws(TLSError) -> TLSContext {
        guard let pointer = water_tls_client_context(verifyingWithSystemCAs ? 1 : 0) else {
            throw TLSError.openSSL("cannot set up TLS")
        }
        return TLSContext(pointer)
    }

    /// Writes a new P-256 key and a self-signed certificate (20 years), both 0600.
    public static func makeSelfSigned(certificate: String, key: String, commonName: String) throws(TLSError) {
        guard water_tls_make_self_signed(certificate, key, commonName) == 1 else {
            throw TLSError.openSSL("cannot write a key and certificate to \(certificate)")
        }
    }
}

/// One TLS connection as a byte-in, byte-out engine on memory buffers: the owner reads
/// ciphertext from its socket into ``feed(_:)``, takes plaintext from ``read(into:)``, hands
/// plaintext to ``write(_:)``, and sends ``takeOutput()`` on the socket. It never touches a
/// socket or blocks, so the server's event loop and the blocking client use it alike. Owned by
/// one thread at a time.
public final class TLSSession {
    public enum Handshake {
        case done
        /// The peer has to send more first (after ``takeOutput()`` is sent).
        case inProgress
    }

    private let pointer: OpaquePointer
    private let context: TLSContext

    /// - Parameter host: the server's name, for SNI and, when the context verifies, the check.
    public init(_ context: TLSContext, isServer: Bool, host: String? = nil) throws(TLSError) {
        guard let pointer = water_tls_session_new(context.pointer, isServer ? 1 : 0, host) else {
            throw TLSError.openSSL("cannot start a TLS session")
        }
        self.pointer = pointer
        self.context = context
    }

    deinit {
        water_tls_session_free(pointer)
    }

    /// Ciphertext from the peer.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        guard water_tls_feed(pointer, bytes.baseAddress, bytes.count) >= 0 else { throw TLSError.openSSL("TLS input") }
    }

    public func feed(_ bytes: [UInt8]) throws(TLSError) {
        guard water_tls_feed(pointer, bytes, bytes.count) >= 0 else { throw TLSError.openSSL("TLS input") }
    }

    /// Moves the handshake on with what was fed.
    /// - Throws: when the handshake failed (the alert to send is in ``takeOutput()``).
    public func handshake() throws(TLSError) -> Handshake {
        switch water_tls_handshake(pointer) {
        case 1:
            guard water_tls_alpn_ok(pointer) == 1 else {
                throw TLSError("the peer does not speak the water protocol (ALPN \"water/1\" was not agreed)")
            }
            return .done
        case 0: return .inProgress
        default: throw TLSError.openSSL("TLS handshake failed")
        }
    }

    /// Decrypted bytes into `buffer`: how many, 0 when none are ready until more is fed, nil
    /// when the peer ended the TLS session.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let count = water_tls_read(pointer, buffer.baseAddress, buffer.count)
        return count < 0 ? nil : count
    }

    /// Feeds `ciphertext` and returns every decrypted byte it completes (possibly none); nil
    /// when the peer ended the TLS session.
    public func decrypt(_ ciphertext: [UInt8]) throws(TLSError) -> [UInt8]? {
        try feed(ciphertext)
        var plaintext: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            guard let count = buffer.withUnsafeMutableBytes({ read(into: $0) }) else { return nil }
            if count == 0 { return plaintext }
            plaintext += buffer[0..<count]
        }
    }

    /// Encrypts `bytes` (after the handshake); the ciphertext waits in ``takeOutput()``.
    public func write(_ bytes: [UInt8]) throws(TLSError) {
        guard water_tls_write(pointer, bytes, bytes.count) == 1 else { throw TLSError.openSSL("TLS output") }
    }

    /// The ciphertext waiting to be sent.
    public func takeOutput() -> [UInt8] {
        let count = water_tls_pending_output(pointer)
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = water_tls_take_output(pointer, buffer.baseAddress, count)
        }
    }

    /// The fingerprint of the certificate the peer presented.
    public var peerFingerprint: Fingerprint? {
        var digest = [UInt8](repeating: 0, count: 32)
        guard water_tls_peer_fingerprint(pointer, &digest) == 1 else { return nil }
        return Fingerprint(bytes: digest)
    }

    /// The cipher suite agreed, e.g. `TLS_CHACHA20_POLY1305_SHA256`.
    public var cipher: String { String(cString: water_tls_cipher(pointer)) }

    /// What a later connection offers to resume this one (a client's session ticket), or nil.
    public func savedSession() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = water_tls_save_session(pointer, &buffer, buffer.count)
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }

    /// Offers a saved session before the handshake; false when it cannot be used.
    @discardableResult
    public func offer(savedSession bytes: [UInt8]) -> Bool {
        water_tls_offer_session(pointer, bytes, bytes.count) == 1
    }

    /// Whether the handshake resumed an offered session.
    public var resumed: Bool { water_tls_session_reused(pointer) == 1 }
}

/// RFC 4648 base64 without padding: for fingerprints, and (`url`, its URL-safe alphabet) for the
/// kitchen wall's links.
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8], url: Bool = false) -> String {
        let alphabet = url ? urlSafe : standard
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<(chunk.count + 1) {
                out.append(alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text` (padding allowed, and ignored); nil for a character outside the alphabet.
    public static func decode(_ text: String, url: Bool = false) -> [UInt8]? {
        let alphabet = url ? urlSafe : standard
        var bits: UInt32 = 0
        var count = 0
        var out: [UInt8] = []
        for character in text.utf8 where character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return out
    }
}
