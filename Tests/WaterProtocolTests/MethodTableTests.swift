import Foundation
import Testing
import WaterProtocol

/// `rpc Name(Request) returns ([stream] Response)` as written in proto/*.proto, read without
/// protoc: an independent check that the table derived from the descriptors is complete.
private func rpcsWrittenInProtoFiles() throws -> [(service: String, method: String, streaming: Bool)] {
    let protoDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../proto").standardizedFileURL
    var found: [(String, String, Bool)] = []
    for file in try FileManager.default.contentsOfDirectory(atPath: protoDirectory.path) where file.hasSuffix(".proto")
    {
        let text = try String(contentsOf: protoDirectory.appendingPathComponent(file), encoding: .utf8)
        var service = ""
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("service ") { service = String(line.split(separator: " ")[1]) }
            if line.hasPrefix("rpc ") {
                let name = line.dropFirst(4).prefix { $0 != "(" }
                found.append(("water.v1.\(service)", String(name), line.contains("returns (stream ")))
            }
        }
    }
    return found
}

@Suite("MethodTable")
struct MethodTableTests {
    @Test("holds exactly the methods written in proto/, with their streaming kind")
    func matchesProtoFiles() throws {
        let written = try rpcsWrittenInProtoFiles()
        let table = MethodTable.shared.methods
        #expect(table.count == written.count)
        for rpc in written {
            let method = try #require(MethodTable.shared.method(named: "\(rpc.service)/\(rpc.method)"))
            #expect(method.isServerStreaming == rpc.streaming, "\(method)")
        }
        #expect(
            table.filter(\.isServerStreaming).map(\.fullName).sorted()
                == ["water.v1.Board/WatchBoard", "water.v1.Transfer/Export"])
    }

    @Test("every method's request and response are generated types, one request per method")
    func typesExist() {
        for method in MethodTable.shared.methods {
            #expect(GeneratedMessages.byProtoName[method.requestType] != nil, "\(method)")
            #expect(GeneratedMessages.byProtoName[method.responseType] != nil, "\(method)")
            #expect(MethodTable.shared.method(forRequest: method.requestType) == method)
        }
    }

    @Test("every Swift request type is tied to its method's response type and kind")
    func swiftRequestTypes() {
        var requestTypes = 0
        for type in GeneratedMessages.byProtoName.values {
            guard let request = type as? any RPCRequest.Type else { continue }
            requestTypes += 1
            check(request)
        }
        #expect(requestTypes == MethodTable.shared.methods.count)
    }

    private func check<Request: RPCRequest>(_ type: Request.Type) {
        #expect(Request.method.responseType == Request.Response.protoName)
        #expect(Request.method.isServerStreaming == (Request.self is any ServerStreamingRPCRequest.Type))
    }

    @Test("names methods the way the envelope carries them")
    func fullNames() throws {
        #expect(WaterV1.LogWaterRequest.method.fullName == "water.v1.Tracker/LogWater")
        #expect(WaterV1.HandshakeRequest.method.fullName == "water.v1.Connection/Handshake")
        #expect(
            MethodTable.shared.method(named: "water.v1.Tracker/LogWater")?.requestType == "water.v1.LogWaterRequest")
        #expect(MethodTable.shared.method(named: "water.v1.Tracker/Drink") == nil)
    }
}

@Suite("MethodTable lookup by bytes")
struct MethodTableBytesTests {
    @Test("finds every method by its UTF-8 bytes, at its index, and nothing else")
    func everyMethodByBytes() {
        for (index, method) in MethodTable.shared.methods.enumerated() {
            #expect(method.index == index)
            let found = Array(method.fullName.utf8).withUnsafeBytes { MethodTable.shared.method(named: $0) }
            #expect(found == method)
            let cut = Array(method.fullName.utf8.dropLast()).withUnsafeBytes { MethodTable.shared.method(named: $0) }
            #expect(cut == nil)
        }
        #expect([UInt8]().withUnsafeBytes { MethodTable.shared.method(named: $0) } == nil)
    }

    @Test("a request type's method is the table's")
    func requestMethods() {
        #expect(WaterV1.LogWaterRequest.method == MethodTable.shared.method(named: "water.v1.Tracker/LogWater"))
        #expect(WaterV1.LogWaterRequest.method.requestType == WaterV1.LogWaterRequest.protoName)
    }
}
