import Foundation
import Testing
import WaterClient
import WaterCodec
import WaterProtocol
import WaterTransport

/// Issue 18 item 1 against the real server: what a device with no account, or a member, may make
/// the event loop read, inflate and decode. Timing is `scripts/bench hostile`'s; these check the
/// limits and what each side is told.
@Suite("Hostile frames, end to end")
struct HostileFramesTests {
    private static let getToday = WaterV1.GetTodayRequest.method.fullName

    @Test(
        "issue18: before login a compressed frame that inflates past 4 KiB is refused and closed; a member's is taken"
    )
    func issue18_inflatedPastTheLimitBeforeLogin() throws {
        let server = try ServerProcess.fresh()
        // 8000 bytes that deflate makes about 2000 (4 letters, random): within the ratio cap,
        // and under 4 KiB on the wire, so only the inflated size is over the limit.
        let padding = (0..<8000).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0..<4) }
        // Read until the server closes: a frame of the 30 s bound only if it never does.
        let stranger = try exchange(
            server.address, handshakeFrame() + compressedCall(2, Self.getToday, token: [], unknownField: padding))
        let refusal = try #require(stranger.replies.last)
        #expect(stranger.closed, "the connection stays open: \(stranger.replies)")
        #expect(refusal.callID == 0 && refusal.statusCode == .resourceExhausted, "\(refusal)")
        #expect(refusal.status?.message.contains("inflates past the limit of 4096 bytes") == true, "\(refusal)")
        #expect(refusal.status?.message.contains("until it logs in") == true, "\(refusal)")

        // A connection is a member's from its first call with a valid token (a small one, as
        // water-client sends first); its frames may then be as large as the server's limit.
        let token = try server.client("mum", password: adminPassword).token
        let member = try exchange(
            server.address,
            handshakeFrame() + smallCall(2, token: token)
                + compressedCall(3, Self.getToday, token: token, unknownField: padding), until: answered(3))
        #expect(!member.closed)
        #expect(member.replies.last?.callID == 3 && member.replies.last?.statusCode == .ok, "\(member.replies)")
        #expect(server.stop() == 0)
    }

    @Test(
        "issue18: frames that get no reply (cancels of calls not in flight) spend the per-turn budget and get it back: the call after 200 is answered"
    )
    func issue18_budgetOfUnansweredFrames() throws {
        let server = try ServerProcess.fresh()
        let cancels = (0..<200).map { n in
            FrameEncoder.frame(
                flags: [],
                wirePayload: WaterV1.RequestEnvelope(
                    callID: UInt64(100 + n), method: "", authToken: [], payload: [], cancel: true
                ).serializedBytes())
        }.joined()
        // A second handshake after them: refused, which is a reply to wait for.
        let again = FrameEncoder.frame(
            flags: [],
            wirePayload: WaterV1.RequestEnvelope(
                callID: 2, request: WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version)
            ).serializedBytes())
        let replies = try exchange(server.address, handshakeFrame() + cancels + again, until: answered(2))
        #expect(replies.replies.map(\.callID) == [1, 2], "\(replies.replies)")
        #expect(replies.replies.last?.statusCode == .failedPrecondition)
        #expect(server.stop() == 0)
    }

    @Test("issue18: a zlib bomb well under every size limit is refused by the ratio cap; the server carries on")
    func issue18_ratioBomb() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        // 200 000 zeros deflate to about 200 bytes: 1000 times, past the cap of 64, and far
        // under a member's frame limit of 1 MiB inflated.
        let bomb = compressedCall(
            2, Self.getToday, token: mum.token, unknownField: [UInt8](repeating: 0, count: 200_000))
        #expect(bomb.count < 1000)
        let refused = try exchange(server.address, handshakeFrame() + smallCall(1_000, token: mum.token) + bomb)
        let refusal = try #require(refused.replies.last)
        #expect(refused.closed && refusal.statusCode == .resourceExhausted, "\(refused.replies)")
        #expect(refusal.status?.message.contains("inflates past 64 times its size") == true, "\(refusal)")
        #expect(try mum.call(WaterV1.GetTodayRequest()).day != nil)
        #expect(server.stop() == 0)
    }

    @Test(
        "issue18: an Import of one field repeated 260 000 times is refused, plain or compressed; nothing is added, and everyone carries on"
    )
    func issue18_repeatedFieldImport() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        let dad = try server.client("dad", password: "dad-password-1")
        // ImportRequest.history (1) of 260 000 empty entries (3): 520 KB, under the frame limit.
        let entries = [UInt8]((0..<260_000).lazy.flatMap { _ in [UInt8(0x1A), 0x00] })
        let request = [0x0A] + varint(entries.count) + entries
        let envelope = WaterV1.RequestEnvelope(
            callID: 2, method: WaterV1.ImportRequest.method.fullName, authToken: mum.token, payload: request,
            cancel: false
        ).serializedBytes()

        let socket = try Socket.connect(to: server.address)
        defer { socket.close() }
        let plain = try exchange(
            on: socket,
            handshakeFrame() + smallCall(1_000, token: mum.token)
                + FrameEncoder.frame(flags: [], wirePayload: envelope),
            until: answered(2))
        let refusal = try #require(plain.replies.last)
        #expect(refusal.callID == 2 && refusal.statusCode == .resourceExhausted, "\(refusal)")
        #expect(refusal.status?.message.contains("at most 131072 fields") == true, "\(refusal)")
        // Only that call failed: the same connection is answered next.
        let after = try exchange(on: socket, smallCall(3, token: mum.token), until: answered(3))
        #expect(!after.closed && after.replies.last?.statusCode == .ok, "\(after.replies)")

        // Compressed it is about 1 KB: past the ratio cap, refused before it is inflated whole.
        let compressed = FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
        #expect(compressed.count < 2000)
        let bomb = try exchange(server.address, handshakeFrame() + smallCall(1_000, token: mum.token) + compressed)
        #expect(bomb.closed && bomb.replies.last?.statusCode == .resourceExhausted, "\(bomb.replies)")
        #expect(bomb.replies.last?.status?.message.contains("inflates past 64 times its size") == true)

        #expect(try dad.call(WaterV1.GetTodayRequest()).day != nil)
        #expect(try mum.call(WaterV1.GetHistoryRequest(days: 7, includeEntries: true)).entries.isEmpty)
        #expect(server.stop() == 0)
    }
}

/// A GetToday with `token`: the small first call that makes a connection a member's.
private func smallCall(_ callID: UInt64, token: [UInt8]) -> [UInt8] {
    FrameEncoder.frame(
        flags: [],
        wirePayload: WaterV1.RequestEnvelope(callID: callID, request: WaterV1.GetTodayRequest(), authToken: token)
            .serializedBytes())
}

/// A frame of one call, compressed, whose envelope also holds an unknown field (15) of `bytes`:
/// what a newer client may send, which this server must skip.
private func compressedCall(_ callID: UInt64, _ method: String, token: [UInt8], unknownField bytes: [UInt8])
    -> [UInt8]
{
    let envelope =
        WaterV1.RequestEnvelope(callID: callID, method: method, authToken: token, payload: [], cancel: false)
        .serializedBytes() + [0x7A] + varint(bytes.count) + bytes
    return FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
}

private func varint(_ value: Int) -> [UInt8] {
    var (value, out) = (UInt64(value), [UInt8]())
    while value >= 0x80 {
        out.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
    }
    return out + [UInt8(value)]
}
