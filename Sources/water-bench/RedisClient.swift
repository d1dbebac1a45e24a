import WaterTransport

/// Just enough of the Redis protocol (RESP) to drive the peer benchmark: send a command, read
/// one reply.
final class RedisClient {
    private let socket: Socket
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

    init(port: UInt16) throws {
        socket = try Socket.connect(to: HostPort(host: "127.0.0.1", port: port))
    }

    deinit {
        socket.close()
    }

    /// Sends one command and returns its reply: a bulk string's content, else the first line.
    @discardableResult
    func command(_ words: [String]) throws -> String {
        let bytes = Self.encode(words)
        var done = 0
        while done < bytes.count {
            done += try bytes.withUnsafeBytes { try socket.write(UnsafeRawBufferPointer(rebasing: $0[done...])) }
        }
        return try readReply()
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end].dropLast(), as: UTF8.self)
                buffer.removeFirst(end + 1)
                return line
            }
            let count = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) } ?? 0
            guard count > 0 else { throw SocketError(operation: "redis read", errno: 104) }
            buffer += chunk[0..<count]
        }
    }

    private func readReply() throws -> String {
        let line = try readLine()
        guard let kind = line.first else { return line }
        switch kind {
        case "$":
            let length = Int(line.dropFirst()) ?? -1
            if length >= 0 { return String(decoding: try readExactly(length + 2).dropLast(2), as: UTF8.self) }
        case "*":
            let count = Int(line.dropFirst()) ?? 0
            for _ in 0..<max(count, 0) { _ = try readReply() }
        case "-":
            throw SocketError(operation: "redis: \(line)", errno: 22)
        default:
            break
        }
        return line
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            let read = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) } ?? 0
            guard read > 0 else { throw SocketError(operation: "redis read", errno: 104) }
            buffer += chunk[0..<read]
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// A command as RESP puts it on the wire: an array of bulk strings.
    static func encode(_ words: [String]) -> [UInt8] {
        var request = "*\(words.count)\r\n"
        for word in words { request += "$\(word.utf8.count)\r\n\(word)\r\n" }
        return Array(request.utf8)
    }
}
