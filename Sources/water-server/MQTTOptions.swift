import Glibc
import WaterCLI
import WaterHome
import WaterServer
import WaterStore
import WaterSystem
import WaterTransport

/// `serve`'s `--mqtt` options (and `$WATER_MQTT`, which the env file sets): the broker, or nil
/// when none is asked for. Every mistake is a usage error (exit 64) that names the option; the
/// password file's content never appears in one.
func mqttSettings(_ arguments: inout Arguments) throws(UsageError) -> MQTTSettings? {
    let option = try arguments.option("mqtt")
    let environment = getenv("WATER_MQTT").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    let username = try arguments.option("mqtt-user")
    let passwordFile = try arguments.option("mqtt-password-file")
    let tls = arguments.flag("mqtt-tls")
    let insecure = arguments.flag("mqtt-insecure")
    let authority = try arguments.option("mqtt-ca")
    let prefix = try arguments.option("mqtt-prefix")
    guard let broker = option ?? environment else {
        let given = [
            username.map { _ in "--mqtt-user" }, passwordFile.map { _ in "--mqtt-password-file" },
            tls ? "--mqtt-tls" : nil, insecure ? "--mqtt-insecure" : nil, authority.map { _ in "--mqtt-ca" },
            prefix.map { _ in "--mqtt-prefix" },
        ].compactMap { $0 }
        if let first = given.first { throw UsageError("\(first) needs --mqtt HOST:PORT (or WATER_MQTT)") }
        return nil
    }
    let source = option == nil ? "WATER_MQTT" : "--mqtt"
    guard
        let address = HostPort(
            parsing: broker, defaultPort: tls ? MQTTSettings.defaultTLSPort : MQTTSettings.defaultPort),
        address.port != 0
    else {
        throw UsageError("\(source) must be the broker's HOST:PORT (like 127.0.0.1:1883), got \(broker)")
    }
    var settings = MQTTSettings(broker: address)
    if let username {
        guard !username.isEmpty, username.utf8.count <= 256, !username.contains(where: \.isNewline) else {
            throw UsageError("--mqtt-user must be a name of 1 to 256 bytes on one line")
        }
        settings.username = username
    }
    if let passwordFile {
        guard username != nil else { throw UsageError("--mqtt-password-file goes with --mqtt-user") }
        settings.password = try password(in: passwordFile)
    }
    try checkPasswordTravels(settings, tls: tls, insecure: insecure, named: "\(source) \(broker)")
    if let authority {
        guard tls else { throw UsageError("--mqtt-ca goes with --mqtt-tls") }
        guard access(authority, R_OK) == 0 else {
            throw UsageError("--mqtt-ca \(authority): cannot read it (\(String(cString: strerror(errno))))")
        }
        settings.certificateAuthority = authority
    }
    settings.tls = tls
    if let prefix {
        guard MQTTSettings.isValidPrefix(prefix) else {
            throw UsageError(
                "--mqtt-prefix must be 1 to 32 of a-z, 0-9, _ and -, starting with a letter (like water), got \(prefix)"
            )
        }
        settings.prefix = prefix
    }
    return settings
}

/// A password goes to a broker on another machine only under TLS (or when said on purpose):
/// in clear, anyone on the home network could read it. The broker is on this machine only when
/// named `localhost` or by a loopback address; any other name may resolve elsewhere.
private func checkPasswordTravels(_ settings: MQTTSettings, tls: Bool, insecure: Bool, named broker: String)
    throws(UsageError)
{
    guard settings.password != nil else {
        if insecure {
            throw UsageError("--mqtt-insecure goes with --mqtt-password-file: without one nothing secret travels")
        }
        return
    }
    guard !tls, !insecure, !isLoopback(settings.broker.host) else { return }
    throw UsageError(
        "\(broker) is not on this machine, and without TLS the server would send the broker password unencrypted "
            + "for anyone on the network to read: add --mqtt-tls (and --mqtt-ca FILE for the broker's own CA), or "
            + "--mqtt-insecure to send it in clear all the same")
}

/// `localhost`, or a numeric address in 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104: no DNS asked.
private func isLoopback(_ host: String) -> Bool {
    if host == "localhost" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
    let bytes = withUnsafeBytes(of: v6) { Array($0) }
    let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
    return bytes == [UInt8](repeating: 0, count: 15) + [1] || (mapped && bytes[12] == 127)
}

/// The first line of `path`, which must not be empty. What the file holds is never shown.
private func password(in path: String) throws(UsageError) -> String {
    let bytes: [UInt8]
    do {
        bytes = try PosixFileSystem().readFile(path, limit: 4096)
    } catch {
        throw UsageError("--mqtt-password-file \(path): cannot read it (\(error)); it holds the password on one line")
    }
    let line = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
    let password = String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)
    guard !password.isEmpty else { throw UsageError("--mqtt-password-file \(path): its first line is empty") }
    return password
}
