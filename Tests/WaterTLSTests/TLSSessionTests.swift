import Foundation
import Testing

@testable import WaterTLS

/// A key and self-signed certificate in a temporary folder.
private func makeCertificate() throws -> (certificate: String, key: String, folder: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try TLSContext.makeSelfSigned(
        certificate: "\(folder)/cert.pem", key: "\(folder)/key.pem", commonName: "water-server")
    return ("\(folder)/cert.pem", "\(folder)/key.pem", folder)
}

/// Moves bytes between two sessions until neither has anything to send.
private func pump(_ client: TLSSession, _ server: TLSSession) throws {
    for _ in 0..<10 {
        let toServer = client.takeOutput()
        let toClient = server.takeOutput()
        if toServer.isEmpty, toClient.isEmpty { return }
        try server.feed(toServer)
        _ = try server.handshake()
        try client.feed(toClient)
        _ = try client.handshake()
    }
}

@Suite("TLS sessions on memory buffers")
struct TLSSessionTests {
    @Test("a client and a server agree on TLS 1.3 with ALPN water/1, and the client sees the certificate's fingerprint")
    func handshakeAndData() throws {
        let files = try makeCertificate()
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let server = try TLSSession(try .server(certificate: files.certificate, key: files.key), isServer: true)
        let client = try TLSSession(try .client(verifyingWithSystemCAs: false), isServer: false, host: "pi.local")
        #expect(try client.handshake() == .inProgress)
        try pump(client, server)
        #expect(try client.handshake() == .done && server.handshake() == .done)
        #expect(client.peerFingerprint == (try Fingerprint(certificateAt: files.certificate)))
        #expect(client.cipher.hasPrefix("TLS_"))
        try client.write(Array("hello".utf8))
        try pump(client, server)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { server.read(into: $0) }
        #expect(count == 5 && Array(buffer.prefix(5)) == Array("hello".utf8))
        #expect(buffer.withUnsafeMutableBytes { server.read(into: $0) } == 0, "nothing more until more is fed")
    }

    @Test("a client that verifies against the system's CAs refuses a self-signed certificate")
    func systemCAsRefuseSelfSigned() throws {
        let files = try makeCertificate()
        defer { try? FileManager.default.removeItem(atPath: files.folder) }
        let server = try TLSSession(try .server(certificate: files.certificate, key: files.key), isServer: true)
        let client = try TLSSession(try .client(verifyingWithSystemCAs: true), isServer: false, host: "pi.local")
        _ = try client.handshake()
        #expect(throws: TLSError.self) { try pump(client, server) }
    }

    @Test("fingerprints print as SHA256:base64 and parse back")
    func fingerprintText() throws {
        let fingerprint = try #require(Fingerprint(bytes: Array(0..<32)))
        #expect(fingerprint.description == "SHA256:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
        #expect(Fingerprint(fingerprint.description) == fingerprint)
        #expect(Fingerprint(fingerprint.description + "=") == fingerprint)
        #expect(Fingerprint("SHA256:short") == nil && Fingerprint("MD5:AAEC") == nil)
    }
}
