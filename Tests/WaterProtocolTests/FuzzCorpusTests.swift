import Foundation
import Testing
import WaterFuzzing
import WaterProtocol
import WaterStore
import WaterZoneInfo

@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    private static func corpusFiles(_ target: String) throws -> [URL] {
        let directory = try #require(
            Bundle.module.url(forResource: "Fixtures/FuzzCorpus/\(target)", withExtension: nil),
            "no corpus for \(target): run scripts/fuzz \(target) SECONDS")
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
    }

    @Test(
        "replays every input scripts/fuzz saved for each target without a crash",
        arguments: FuzzTarget.all.map(\.name))
    func replay(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let files = try Self.corpusFiles(name)
        #expect(files.count >= target.seeds().count, "\(name): \(files.count) inputs")
        for file in files {
            target.run([UInt8](try Data(contentsOf: file)))
        }
    }

    @Test(
        "starts the store's fuzzers from files the real loader reads: each snapshot as its kind, each log for all three"
    )
    func storeSeedsLoad() throws {
        for seed in StoreFuzzing.snapshotSeeds() {
            // The archive of the snapshot's kind loads, expected to exist and allowed to be new.
            #expect(StoreFuzzing.loadSnapshot(seed, timeZones: ZoneInfo.system) == 2)
        }
        for seed in StoreFuzzing.logSeeds() {
            // With no snapshot, each kind loads only where a new archive is allowed.
            #expect(StoreFuzzing.loadLog(seed, timeZones: ZoneInfo.system) == 3)
        }
    }

    @Test("starts the frame fuzzer from a valid call of every method")
    func seedsAreValidCalls() throws {
        var methods: Set<String> = []
        for seed in FrameFuzzing.seedInputs() {
            var decoder = FrameDecoder(maximumPayloadLength: FrameFuzzing.maximumPayloadLength)
            decoder.append(seed.dropFirst())
            let frame = try #require(try decoder.nextFrame())
            if let call = try? IncomingCall(payload: frame.payload), let method = call.method {
                methods.insert(method.fullName)
            }
        }
        #expect(methods == Set(MethodTable.shared.methods.map(\.fullName)))
    }
}
