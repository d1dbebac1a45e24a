import Foundation
import Testing
import WaterClient
import WaterProtocol

/// A request frame whose envelope and payload are written by hand: the library's own encoder
/// hands protobuf-c C strings, so it could not even send a NUL.
private func rawCall(_ callID: UInt64, method: [UInt8], payload: [UInt8]) -> [UInt8] {
    func field(_ number: UInt8, _ value: [UInt8]) -> [UInt8] { [number << 3 | 2] + varint(value.count) + value }
    func varint(_ value: Int) -> [UInt8] {
        var (value, out) = (UInt64(value), [UInt8]())
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }
    let envelope = [0x08] + varint(Int(callID)) + field(2, method) + field(4, payload)
    return [0] + withUnsafeBytes(of: UInt32(envelope.count).bigEndian) { Array($0) } + envelope
}

private func login(_ username: [UInt8], _ password: [UInt8]) -> [UInt8] {
    [0x0A, UInt8(username.count)] + username + [0x12, UInt8(password.count)] + password
}

@Suite("Strict strings and bounded echoes, end to end")
struct StrictInputTests {
    @Test("logging in as ann\\0x or with a NUL in the password is refused, naming the field; nobody is logged in")
    func nulInLogin() throws {
        let server = try ServerProcess.fresh()
        let method = Array("water.v1.Accounts/Login".utf8)
        let asOther = try exchange(
            server.address,
            handshakeFrame()
                + rawCall(2, method: method, payload: login(Array("mum\u{0}x".utf8), Array(adminPassword.utf8))),
            until: answered(2))
        let refusal = try #require(asOther.replies.last)
        #expect(refusal.callID == 2 && refusal.statusCode == .invalidArgument)
        #expect(refusal.status?.violations.map(\.field) == ["username"])
        #expect(refusal.payload.isEmpty)
        let longer = try exchange(
            server.address,
            handshakeFrame()
                + rawCall(
                    2, method: method, payload: login(Array("mum".utf8), Array((adminPassword + "\u{0}junk").utf8))),
            until: answered(2))
        #expect(longer.replies.last?.status?.violations.map(\.field) == ["password"])
        let badUTF8 = try exchange(
            server.address, handshakeFrame() + rawCall(2, method: method, payload: login([0x6D, 0x75, 0xFF], [0x61])),
            until: answered(2))
        #expect(badUTF8.replies.last?.status?.violations.map(\.field) == ["username"])
        #expect(server.stop() == 0)
    }

    @Test(
        "a NUL in the method name is refused; before login a frame is 4 KiB at most; a member's 900 KB method name is quoted in 100 bytes, in the reply and the log"
    )
    func methodNames() throws {
        let server = try ServerProcess.fresh()
        let nul = try exchange(
            server.address,
            handshakeFrame() + rawCall(2, method: Array("water.v1.Tracker/GetSettings\u{0}".utf8), payload: []),
            until: answered(2))
        let refusal = try #require(nul.replies.last)
        #expect(refusal.statusCode == .invalidArgument && refusal.status?.violations.map(\.field) == ["method"])
        // Before login, a frame announcing 900 KB is refused from its header: nothing of it is read.
        let early = try exchange(
            server.address, handshakeFrame() + [0, 0x00, 0x0D, 0xBB, 0xA0] + [UInt8](repeating: 0x41, count: 64))
        let tooLarge = try #require(early.replies.last)
        #expect(early.closed && tooLarge.statusCode == .resourceExhausted, "\(tooLarge)")
        #expect(tooLarge.status?.message.contains("at most 4096 bytes") == true, "\(tooLarge)")
        // Logged in (a call with a valid token first), the frame may be large; the name is quoted.
        let token = try server.client("mum", password: adminPassword).token
        let huge = String(repeating: "x", count: 900_000)
        let long = try exchange(
            server.address,
            handshakeFrame()
                + rawCallWithToken(2, method: Array("water.v1.Tracker/GetSettings".utf8), payload: [], token: token)
                + rawCallWithToken(3, method: Array(huge.utf8), payload: [], token: token), until: answered(3))
        let unknown = try #require(long.replies.last)
        #expect(unknown.statusCode == .unimplemented)
        #expect(unknown.status!.message.utf8.count < 200 && unknown.status!.message.contains("900000 bytes"))
        #expect(server.stop() == 0)
        let lines = server.log.split(separator: "\n")
        #expect(
            lines.allSatisfy { $0.utf8.count < 1000 },
            "the longest log line is \(lines.map(\.utf8.count).max() ?? 0) bytes")
    }

    @Test("invalid UTF-8 in a todo's text is refused, the library will not send a NUL, and nothing is stored")
    func invalidTodo() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        let text: [UInt8] = [0x6D, 0x69, 0x6C, 0x6B, 0xFF, 0xFE, 0xFD]
        let id = Array(mum.newID().description.utf8)
        let payload = [0x0A, UInt8(id.count)] + id + [0x12, UInt8(text.count)] + text
        let frames =
            handshakeFrame()
            + rawCallWithToken(2, method: Array("water.v1.Todo/AddTodo".utf8), payload: payload, token: mum.token)
        let reply = try #require(try exchange(server.address, frames, until: answered(2)).replies.last)
        #expect(reply.statusCode == .invalidArgument && reply.status?.violations.map(\.field) == ["text"])
        // The library refuses to send a NUL rather than let protobuf-c cut the text short.
        let cut = try #require(throws: WaterError.self) {
            try mum.call(WaterV1.AddTodoRequest(itemID: mum.newID().description, text: "milk\u{0}and eggs"))
        }
        #expect(cut.code == .invalidArgument && cut.message.contains("U+0000"))
        #expect(try mum.call(WaterV1.ListTodosRequest()).items.isEmpty)
        #expect(server.stop() == 0)
    }
}

/// ``rawCall`` with a session token (envelope field 3).
private func rawCallWithToken(_ callID: UInt64, method: [UInt8], payload: [UInt8], token: [UInt8]) -> [UInt8] {
    let frame = rawCall(callID, method: method, payload: payload)
    let envelope = Array(frame.dropFirst(5)) + [0x1A, UInt8(token.count)] + token
    return [0] + withUnsafeBytes(of: UInt32(envelope.count).bigEndian) { Array($0) } + envelope
}
