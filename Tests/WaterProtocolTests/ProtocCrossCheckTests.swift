import Foundation
import Testing
import WaterCodec
import WaterProtocol
import WaterTestSupport

/// Runs Google's `protoc` (Debian's protobuf-compiler, a protobuf implementation that is not
/// protobuf-c) over `input` with `arguments`, from the repository's `folder` of .proto files.
private func protoc(_ arguments: [String], folder: String, input: [UInt8]) throws -> [UInt8] {
    let protoDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../\(folder)").standardizedFileURL
    let protoFiles = try FileManager.default.contentsOfDirectory(atPath: protoDirectory.path)
        .filter { $0.hasSuffix(".proto") }.sorted()
    let protoc = try ChildProcess(
        "/usr/bin/protoc", arguments + ["-I\(protoDirectory.path)"] + protoFiles.map { "\(protoDirectory.path)/\($0)" },
        bytes: input)
    let output = protoc.readOutputBytes(seconds: 120)
    guard protoc.wait() == 0 else {
        throw WaterError(.internal, "protoc \(arguments.joined(separator: " ")) failed: \(protoc.errorText)")
    }
    return Array(output)
}

@Suite("Cross-check with protoc")
struct ProtocCrossCheckTests {
    @Test("protoc reads what we encode, and we read what protoc encodes", arguments: allMessageNames)
    func bothWays(name: String) throws {
        let set = GeneratedSet.of(name)
        try crossCheck(set.types[name]!, folder: set.folder)
    }

    private func crossCheck<Message: ProtoMessage>(_ type: Message.Type, folder: String) throws {
        let original = SampleValues.make(Message.self)
        let text = try protoc(["--decode=\(Message.protoName)"], folder: folder, input: original.serializedBytes())
        let reencoded = try protoc(["--encode=\(Message.protoName)"], folder: folder, input: text)
        #expect(try Message(serializedBytes: reencoded) == original)
    }

    @Test("protoc sees the field names and values a stranger would expect")
    func readableByProtoc() throws {
        let request = WaterV1.LogWaterRequest(
            entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250,
            atUnixMs: 1_764_504_000_000)
        let text = String(
            decoding: try protoc(
                ["--decode=water.v1.LogWaterRequest"], folder: "proto", input: request.serializedBytes()),
            as: UTF8.self)
        #expect(
            text == """
                entry_id: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e"
                amount_ml: 250
                at_unix_ms: 1764504000000

                """)
    }

    @Test("we read an envelope written by protoc from text")
    func envelopeFromText() throws {
        let bytes = try protoc(
            ["--encode=water.v1.ResponseEnvelope"], folder: "proto",
            input: Array(
                """
                call_id: 12
                status { code: INVALID_ARGUMENT message: "a drink must be between 1 and 2000 ml"
                         violations { field: "amount_ml" description: "a drink must be between 1 and 2000 ml" } }
                end_of_stream: true
                """.utf8))
        let envelope = try WaterV1.ResponseEnvelope(serializedBytes: bytes)
        #expect(envelope.callID == 12)
        #expect(envelope.endOfStream)
        #expect(envelope.status?.code == .invalidArgument)
        #expect(
            envelope.status?.violations == [
                WaterV1.FieldViolation(
                    field: "amount_ml",
                    description: "a drink must be between 1 and 2000 ml")
            ])
    }
}
