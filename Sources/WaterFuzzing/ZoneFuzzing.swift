import Glibc
import WaterCore
import WaterZoneInfo

/// TZif, the compiled zone files the server and the client read from /usr/share/zoneinfo (or
/// wherever TZDIR points, which a member's machine decides).
enum ZoneFuzzing {
    static func run(_ bytes: [UInt8]) {
        guard let table = TZif.parse(bytes) else { return }
        let zone = MemberTimeZone(identifier: "Fuzz/Zone", offsets: table)
        // Every lookup the calendar makes must answer, over the whole range a time can take;
        // days from 1900 to 2100 (the clock option's range and then some).
        for seconds: Int64 in [.min, -1, 0, .max] { _ = zone.offsetSeconds(atUnixSeconds: seconds) }
        for seconds: Int64 in [-2_208_988_800, 0, 1_764_504_000, 4_102_444_800] {
            _ = zone.date(atUnixMilliseconds: seconds * 1000)
        }
    }

    /// A few of this machine's zone files: with and without rules for the future, one offset only.
    static func seeds() -> [[UInt8]] {
        ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC", "Australia/Lord_Howe"].compactMap { name in
            guard let file = fopen("/usr/share/zoneinfo/\(name)", "rb") else { return nil }
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
                bytes += buffer[..<count]
            }
            return bytes
        }
    }
}
