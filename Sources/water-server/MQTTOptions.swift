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
    let authority = try arguments.option("mqtt-ca")
    let prefix = try arguments.option("mqtt-prefix")
    guard let broker = option ?? environment else {
        let given = [
            username.map { _ in "--mqtt-user" }, passwordFile.map { _ in "--mqtt-password-file" },
            tls ? "--mqtt-tls" : nil, authority.map { _ in "--mqtt-ca" }, prefix.map { _ in "--mqtt-prefix" },
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
