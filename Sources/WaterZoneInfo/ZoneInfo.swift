import Glibc
import WaterCore
import WaterSync

/// The system's time zones: the compiled files of a zoneinfo directory (Debian's tzdata), read
/// once per zone. What the programs hand the domain.
///
/// Foundation's `TimeZone` cannot find the zone data in a binary built with `-static-stdlib`
/// (what `scripts/run` and `deploy/` ship), so the zones come from here in every build.
public final class ZoneInfo: TimeZoneSource {
    /// `$TZDIR`, else /usr/share/zoneinfo: the one every program uses.
    public static let system = ZoneInfo(
        directory: getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "/usr/share/zoneinfo")

    public let directory: String
    /// Zones already read, by identifier; a name with no file is remembered as nil.
    private let zones = Locked<[String: MemberTimeZone?]>(["UTC": .utc])

    public init(directory: String) {
        self.directory = directory
    }

    public func zone(named identifier: String) -> MemberTimeZone? {
        if let known = zones.withLock({ $0[identifier] }) { return known }
        let found =
            Self.isZoneName(identifier)
            ? Self.read("\(directory)/\(identifier)").flatMap(TZif.parse).map {
                MemberTimeZone(identifier: identifier, offsets: $0)
            } : nil
        zones.withLock { $0[identifier] = found }
        return found
    }

    /// The zones' names as tzdata lists them for people (`zone1970.tab`: one a region, e.g.
    /// `Asia/Tokyo`), with UTC: what a "did you mean" picks from. Empty when it lists none.
    public func names() -> [String] {
        guard let bytes = Self.read("\(directory)/zone1970.tab") else { return [] }
        let zones = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: "\t")
            return line.hasPrefix("#") || fields.count < 3 ? nil : String(fields[2])
        }
        return ["UTC"] + zones
    }

    /// This machine's zone: `$TZ`, else /etc/timezone, else where /etc/localtime points, else
    /// UTC.
    public func local() -> MemberTimeZone {
        var candidates: [String] = []
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            candidates.append(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz)
        }
        if let file = fopen("/etc/timezone", "r") {
            var buffer = [CChar](repeating: 0, count: 128)
            if fgets(&buffer, 128, file) != nil {
                candidates.append(
                    String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                )
            }
            fclose(file)
        }
        var link = [CChar](repeating: 0, count: 256)
        let length = readlink("/etc/localtime", &link, 255)
        if length > 0 {
            let target = String(decoding: link.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = target.split(separator: "/", omittingEmptySubsequences: true)
            if let index = parts.firstIndex(of: "zoneinfo") {
                candidates.append(parts[(index + 1)...].joined(separator: "/"))
            }
        }
        return candidates.lazy.compactMap(zone(named:)).first ?? .utc
    }

    /// A zone name, never a path that leaves the zoneinfo directory.
    private static func isZoneName(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.count < 64 && !identifier.hasPrefix("/") && !identifier.contains("..")
            && identifier.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789/_+-".unicodeScalars.contains($0))
            }
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while bytes.count < 1 << 20 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }
}
