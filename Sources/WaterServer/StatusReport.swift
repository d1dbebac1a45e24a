import Glibc
import WaterStore
import WaterTLS

/// `water-server status --data DIR`: what the running server last wrote to `DATA/status`,
/// whether it is still alive, and the size of every archive on disk. It takes no lock, so it
/// works while the server runs.
public enum StatusReport {
    public static func render(dataDirectory: String, now: Int64) throws -> String {
        guard access("\(dataDirectory)/\(DataDirectory.formatFile)", F_OK) == 0 else {
            throw AdminCommands.Failure(description: "\(dataDirectory) is not a water data directory")
        }
        let fields = Dictionary(
            read("\(dataDirectory)/status").split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        var lines: [String] = []
        let pid = fields["pid"].flatMap { Int32($0) }
        if let pid, kill(pid, 0) == 0, let started = fields["started_at_unix_ms"].flatMap(Int64.init) {
            lines.append(
                "running: pid \(pid), listening on \(fields["listening"] ?? "?"), up \(duration(now - started))")
            lines.append("connections: \(fields["connections"] ?? "?")")
        } else {
            lines.append("not running" + (pid.map { " (pid \($0) was the last server)" } ?? ""))
        }
        lines.append("members: \(fields["members"] ?? "?")")
        lines.append("certificate: \(fields["certificate"] ?? Self.selfSignedFingerprint(in: dataDirectory))")
        lines.append("protected: \(fields["protected"] ?? "unknown (water-server check tells)")")
        if let compaction = fields["last_compaction"]?.split(separator: " ", maxSplits: 1), compaction.count == 2,
            let time = Int64(compaction[0])
        {
            lines.append("last compaction: \(duration(now - time)) ago, \(compaction[1])")
        } else {
            lines.append("last compaction: none since the server started")
        }
        lines.append("archives:")
        let archives =
            (try? DataDirectory.archives(in: dataDirectory, fileSystem: PosixFileSystem()))
            ?? [DataDirectory.accounts, DataDirectory.household]
        for archive in archives {
            let name = archive + String(repeating: " ", count: max(0, 16 - archive.count))
            lines.append("  \(name) \(size(of: "\(dataDirectory)/\(archive)"))")
        }
        return lines.joined(separator: "\n")
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

    /// The bytes of the files in `directory`, for people.
    private static func size(of directory: String) -> String {
        let names = (try? PosixFileSystem().listDirectory(directory)) ?? []
        var bytes = 0
        for name in names {
            var info = stat()
            if stat("\(directory)/\(name)", &info) == 0 { bytes += Int(info.st_size) }
        }
        return bytes < 10 * 1024 ? "\(bytes) B" : bytes < 10 << 20 ? "\(bytes / 1024) KiB" : "\(bytes >> 20) MiB"
    }

    private static func duration(_ milliseconds: Int64) -> String {
        let seconds = max(milliseconds / 1000, 0)
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        if seconds < 172_800 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) days"
    }
}
