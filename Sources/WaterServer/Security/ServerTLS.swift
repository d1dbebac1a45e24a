import Glibc
import WaterStore
import WaterTLS
import WaterTransport

/// The server's certificate and key. `water-server init` makes a key and a self-signed
/// certificate in the data directory (`tls/`, 0700, the files 0600); a household with a real
/// certificate names its own files instead.
public struct ServerTLSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// The self-signed pair `init` makes, in `dataDirectory`.
    public static func selfSigned(in dataDirectory: String) -> ServerTLSFiles {
        ServerTLSFiles(
            certificate: "\(dataDirectory)/\(DataDirectory.tls)/certificate.pem",
            key: "\(dataDirectory)/\(DataDirectory.tls)/key.pem")
    }

    /// Makes the self-signed pair in `dataDirectory` unless it is there (a data directory made
    /// before TLS gets one at its first start). Returns the certificate's fingerprint.
    @discardableResult
    public static func ensureSelfSigned(in dataDirectory: String) throws(TLSError) -> Fingerprint {
        let files = selfSigned(in: dataDirectory)
        if access(files.certificate, R_OK) != 0 || access(files.key, R_OK) != 0 {
            mkdir("\(dataDirectory)/\(DataDirectory.tls)", 0o700)
            try TLSContext.makeSelfSigned(certificate: files.certificate, key: files.key, commonName: "water-server")
            let directory = open("\(dataDirectory)/\(DataDirectory.tls)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                fsync(directory)
                close(directory)
            }
        }
        return try Fingerprint(certificateAt: files.certificate)
    }
}

extension HostPort {
    /// The address plaintext is served on: the numeric loopback address the name resolved to,
    /// every one of its addresses checked (``loopbackAddress()``), so that a name which resolves
    /// elsewhere, whatever it looks like, never serves passwords in the clear over the LAN.
    /// - Throws: ``InsecureListen`` when any address is not loopback or the name does not resolve.
    public func plaintextListenAddress() throws(InsecureListen) -> HostPort {
        do {
            return try loopbackAddress()
        } catch let error as SocketError {
            // The resolver's own words ("Name or service not known"); the errno says nothing.
            throw InsecureListen(address: self, reason: "cannot \(error.operation)")
        } catch {
            throw InsecureListen(address: self, reason: "\(error)")
        }
    }
}

/// Plaintext asked for on an address other machines can reach (or one that does not resolve).
public struct InsecureListen: Error, CustomStringConvertible {
    public let address: HostPort
    /// What the address resolved to, or why it did not.
    public let reason: String

    public var description: String {
        "--plaintext is insecure and only allowed on a loopback address (127.0.0.1, ::1); \(reason)"
    }
}
