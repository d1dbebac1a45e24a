import Foundation
import Testing
import WaterFuzzing
import WaterProtocol

@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    private static func corpusFiles() throws -> [URL] {
        let directory = try #require(Bundle.module.url(forResource: "Fixtures/FuzzCorpus", withExtension: nil))
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
    }

    @Test("replays every input scripts/fuzz saved without a crash")
    func replay() throws {
        let files = try Self.corpusFiles()
        #expect(files.count >= FuzzTarget.seedInputs().count)
        for file in files {
            FuzzTarget.run(try Data(contentsOf: file))
        }
    }

    @Test("starts the fuzzer from a valid call of every method")
    func seedsAreValidCalls() throws {
        var methods: Set<String> = []
        for seed in FuzzTarget.seedInputs() {
            var decoder = FrameDecoder(maximumPayloadLength: FuzzTarget.maximumPayloadLength)
            decoder.append(seed.dropFirst())
            let frame = try #require(try decoder.nextFrame())
            if let call = try? IncomingCall(payload: frame.payload), let method = call.method {
                methods.insert(method.fullName)
            }
        }
        #expect(methods == Set(MethodTable.shared.methods.map(\.fullName)))
    }
}
