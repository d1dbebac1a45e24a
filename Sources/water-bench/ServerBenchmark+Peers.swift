import Glibc

/// The peers each figure is measured against: Redis's script for logging a drink, its round
/// trip, and this machine's raw fdatasync.
extension ServerBenchmark {
    /// "Log a drink" for Redis: append it to the member's list and add it to the weekly board.
    /// Returns the script's SHA-1, for EVALSHA.
    static func loadScript(_ redis: RedisClient) throws -> String {
        try redis.command([
            "SCRIPT", "LOAD",
            "redis.call('RPUSH', KEYS[1], ARGV[3]); return redis.call('ZINCRBY', KEYS[2], ARGV[1], ARGV[2])",
        ])
    }

    /// The request that logs a drink in Redis as ``loadScript(_:)``'s script `sha` does it: h1's
    /// 250 ml, on h1's list and the board.
    static func redisLogRequest(script sha: String) -> [UInt8] {
        RedisClient.encode(["EVALSHA", sha, "2", "log:h1", "board", "250", "h1", "{\"ml\":250}"])
    }

    static func pingMicroseconds(_ redis: RedisClient) throws -> Double {
        var times: [Double] = []
        for _ in 0..<2000 { times.append(try Measure.microseconds { try redis.command(["PING"]) }) }
        return Measure.median(times)
    }

    static func fdatasyncMicroseconds(in directory: String) -> Double {
        let fd = open("\(directory)/fsync-probe", O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        let payload = [UInt8](repeating: 1, count: 100)
        var times: [Double] = []
        for index in 0..<1000 {
            times.append(
                Measure.microseconds {
                    _ = payload.withUnsafeBytes { pwrite(fd, $0.baseAddress, 100, off_t(index * 100)) }
                    fdatasync(fd)
                })
        }
        return Measure.median(times)
    }
}
