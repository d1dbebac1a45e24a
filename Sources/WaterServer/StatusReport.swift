import Glibc
import WaterStore
import WaterSystem
import WaterTLS
import WaterZoneInfo

/// `water-server status --data DIR`: what the running server last wrote to `DATA/status`,
/// whether it is still alive, and the size of every archive on disk. It takes no lock, so it
/// works while the server runs. `--json` prints it with these field names.
public struct StatusReport: Encodable, Sendable {
    public struct Compaction: Encodable, Sendable {
        public var atUnixMs: Int64
        public var archive: String
    }

    /// The server's clock against a time it must have passed (``ClockGuard``).
    public struct Clock: Encodable, Sendable {
        public var nowUnixMs: Int64
        /// Writes are refused while it is.
        public var behind: Bool
        public var referenceUnixMs: Int64?
        /// "newest record" or "build time".
        public var reference: String?
        /// What the server says of it while behind: "it says ..., the newest record is ...".
        public var explanation: String?
    }

    /// The MQTT broker `serve --mqtt` publishes to, and whether it is connected now.
    public struct MQTT: Encodable, Sendable {
        public var broker: String
        public var connected: Bool
    }

    public struct ArchiveSize: Encodable, Sendable {
        public var name: String
        /// Whose archive it is (`users/<id>`), when the accounts say.
        public var member: String?
        public var bytes: Int
    }

    public var running: Bool
    /// The running server's, or the last one's.
    public var pid: Int32?
    public var listening: String?
    public var uptimeSeconds: Int64?
    public var connections: Int?
    /// What the running server holds: its private memory (RssAnon), and how many archives
    /// (the accounts, the household's list and each member's used since the start) it has in it.
    public var memoryPrivateKib: Int?
    public var archivesLoaded: Int?
    /// How many idle members' archives the running server dropped from memory since it started.
    public var archivesDropped: Int?
    public var members: Int?
    /// How many of the members are admins, and how many children (nil from an older server).
    public var admins: Int?
    public var children: Int?
    public var certificate: String
    /// The archives the server refuses to change; nil when no server has said.
    public var protected: [String]?
    public var lastCompaction: Compaction?
    /// The running server's clock; nil when it is not running.
    public var clock: Clock?
    /// nil when the running server publishes to no broker (or none runs).
    public var mqtt: MQTT?
    public var archives: [ArchiveSize]
    /// Each member's archive folder (`users/<id>`) and username, to name them in the text.
    var memberNames: [String: String] = [:]

    public static func read(dataDirectory: String, now: Int64) throws -> StatusReport {
        guard access("\(dataDirectory)/\(DataDirectory.formatFile)", F_OK) == 0 else {
            throw AdminCommands.Failure(description: "\(dataDirectory) is not a water data directory")
        }
        let fields = Dictionary(
            read("\(dataDirectory)/status").split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        let pid = fields["pid"].flatMap { Int32($0) }
        let started = fields["started_at_unix_ms"].flatMap(Int64.init)
        // Running means the lock is held, by the process the status file names: after a power
        // cut, the recorded pid may have been given to another program, which holds no lock.
        let running =
            started != nil && pid.map { DataDirectory.user(of: dataDirectory) == Server.lockOwner(pid: $0) } ?? false
        let compaction = fields["last_compaction"]?.split(separator: " ", maxSplits: 1)
        let names = DataDirectoryCheck.memberNames(dataDirectory, timeZones: ZoneInfo.system)
        // The shared log takes its share of the disk too (whole segments, made ahead of time).
        let archives =
            ((try? DataDirectory.archives(in: dataDirectory, fileSystem: PosixFileSystem()))
                ?? [DataDirectory.accounts, DataDirectory.household]) + [DataDirectory.log]
        return StatusReport(
            running: running, pid: pid, listening: running ? fields["listening"] : nil,
            uptimeSeconds: running ? started.map { max(now - $0, 0) / 1000 } : nil,
            connections: running ? fields["connections"].flatMap { Int($0) } : nil,
            memoryPrivateKib: running ? fields["memory_private_kib"].flatMap { Int($0) } : nil,
            archivesLoaded: running ? fields["archives_loaded"].flatMap { Int($0) } : nil,
            archivesDropped: running ? fields["archives_dropped"].flatMap { Int($0) } : nil,
            members: fields["members"].flatMap { Int($0) }, admins: fields["admins"].flatMap { Int($0) },
            children: fields["children"].flatMap { Int($0) },
            certificate: fields["certificate"] ?? selfSignedFingerprint(in: dataDirectory),
            protected: fields["protected"].map { $0 == "none" ? [] : $0.split(separator: ",").map(String.init) },
            lastCompaction: compaction.flatMap { parts in
                guard parts.count == 2, let time = Int64(parts[0]) else { return nil }
                return Compaction(atUnixMs: time, archive: String(parts[1]))
            },
            clock: running ? clock(fields) : nil,
            mqtt: running ? fields["mqtt"].flatMap(mqtt) : nil,
            archives: archives.map {
                ArchiveSize(name: $0, member: names[$0], bytes: bytes(in: "\(dataDirectory)/\($0)"))
            }, memberNames: names)
    }

    private static func clock(_ fields: [String: String]) -> Clock? {
        guard let now = fields["clock_now_unix_ms"].flatMap(Int64.init) else { return nil }
        return Clock(
            nowUnixMs: now, behind: fields["clock_behind"] == "yes",
            referenceUnixMs: fields["clock_reference_unix_ms"].flatMap(Int64.init),
            reference: fields["clock_reference"],
            explanation: fields["clock_explanation"])
    }

    /// `mqtt connected HOST:PORT` or `mqtt disconnected HOST:PORT`, as the server writes it.
    private static func mqtt(_ field: String) -> MQTT? {
        let parts = field.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["connected", "disconnected"].contains(parts[0]) else { return nil }
        return MQTT(broker: String(parts[1]), connected: parts[0] == "connected")
    }

    /// The report for people.
    public func text(now: Int64) -> String {
        var lines: [String] = []
        if running, let pid {
            lines.append(
                "running: pid \(pid), listening on \(listening ?? "?"), up \(Self.duration(uptimeSeconds ?? 0))")
            lines.append("connections: \(connections.map(String.init) ?? "?")")
            if let memoryPrivateKib, let archivesLoaded {
                let mebibytes = (Double(memoryPrivateKib) / 1024 * 10).rounded() / 10
                lines.append(
                    "memory: \(mebibytes) MiB private, \(archivesLoaded) archives in memory"
                        + (archivesDropped.map { ", \($0) dropped idle" } ?? ""))
            }
            if let mqtt {
                lines.append(
                    "mqtt: \(mqtt.connected ? "connected to" : "not connected (retrying)") \(mqtt.broker)")
            }
        } else {
            lines.append("not running" + (pid.map { " (pid \($0) was the last server)" } ?? ""))
        }
        let roles = [
            admins.map { "\($0) admin\($0 == 1 ? "" : "s")" }, children.map { "\($0) child\($0 == 1 ? "" : "ren")" },
        ].compactMap { $0 }
        lines.append(
            "members: \(members.map(String.init) ?? "?")" + (roles.isEmpty ? "" : " (\(roles.joined(separator: ", ")))")
        )
        lines.append("certificate: \(certificate)")
        lines.append(
            "protected: "
                + (protected.map { $0.isEmpty ? "none" : $0.map(named).joined(separator: ", ") }
                    ?? "unknown (water-server check tells)"))
        if let lastCompaction {
            lines.append(
                "last compaction: \(Self.duration((now - lastCompaction.atUnixMs) / 1000)) ago, \(named(lastCompaction.archive))"
            )
        } else {
            lines.append("last compaction: none since the server started")
        }
        if let clock {
            lines.append(
                clock.behind
                    ? "clock: behind (\(clock.explanation ?? "")); writes are refused until the time is set"
                    : "clock: ok")
        }
        lines.append("archives:")
        for archive in archives {
            let label = archive.member.map { "\(archive.name) (\($0))" } ?? archive.name
            let name = label + String(repeating: " ", count: max(0, 24 - label.count))
            lines.append("  \(name) \(Self.size(archive.bytes))")
        }
        return lines.joined(separator: "\n")
    }

    /// An archive's path as the server wrote it (`DATA/users/2`), with the member's name.
    private func named(_ path: String) -> String {
        let folder = memberNames.keys.first { path == $0 || path.hasSuffix("/\($0)") }
        return folder.flatMap { memberNames[$0].map { "\(path) (\($0))" } } ?? path
    }

    /// The fingerprint of the self-signed certificate `init` made, for when no server has said
    /// which one it serves.
    private static func selfSignedFingerprint(in dataDirectory: String) -> String {
        let files = ServerTLSFiles.selfSigned(in: dataDirectory)
        return (try? Fingerprint(certificateAt: files.certificate))?.description
            ?? "none (the server makes one at start)"
    }

    private static func read(_ path: String) -> String {
        (try? PosixFileSystem().readFile(path, limit: 64 * 1024)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The bytes of the files in `directory`.
    private static func bytes(in directory: String) -> Int {
        let names = (try? PosixFileSystem().listDirectory(directory)) ?? []
        var bytes = 0
        for name in names {
            var info = stat()
            if stat("\(directory)/\(name)", &info) == 0 { bytes += Int(info.st_size) }
        }
        return bytes
    }

    private static func size(_ bytes: Int) -> String {
        bytes < 10 * 1024 ? "\(bytes) B" : bytes < 10 << 20 ? "\(bytes / 1024) KiB" : "\(bytes >> 20) MiB"
    }

    private static func duration(_ seconds: Int64) -> String {
        let seconds = max(seconds, 0)
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        if seconds < 172_800 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) days"
    }
}
