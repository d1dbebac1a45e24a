import Foundation
import WaterClient
import WaterProtocol
import WaterStore
import WaterZoneInfo

/// One parser of bytes from outside, as libFuzzer (`scripts/fuzz TARGET`) and the corpus
/// replay in the tests (Tests/WaterProtocolTests/Fixtures/FuzzCorpus/TARGET) run it. Errors are
/// expected and ignored; what must never happen is a crash, a hang, or a value that does not
/// survive being written and read again.
public struct FuzzTarget: Sendable {
    public let name: String
    /// Runs one input.
    public let run: @Sendable ([UInt8]) -> Void
    /// Valid inputs to start from.
    public let seeds: @Sendable () -> [[UInt8]]

    /// Every target, by the name `scripts/fuzz` takes.
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "frames", run: { FrameFuzzing.run($0) }, seeds: FrameFuzzing.seedInputs),
        FuzzTarget(
            name: "snapshot", run: { StoreFuzzing.loadSnapshot($0, timeZones: ZoneInfo.system) },
            seeds: StoreFuzzing.snapshotSeeds),
        FuzzTarget(
            name: "log", run: { StoreFuzzing.loadLog($0, timeZones: ZoneInfo.system) }, seeds: StoreFuzzing.logSeeds),
        FuzzTarget(name: "import-json", run: ClientFileFuzzing.importJSON, seeds: ClientFileFuzzing.importSeeds),
        FuzzTarget(name: "import-csv", run: ClientFileFuzzing.importCSV, seeds: ClientFileFuzzing.csvSeeds),
        FuzzTarget(name: "outbox", run: ClientFileFuzzing.outbox, seeds: ClientFileFuzzing.outboxSeeds),
        FuzzTarget(name: "status-cache", run: ClientFileFuzzing.statusCache, seeds: ClientFileFuzzing.statusSeeds),
        FuzzTarget(name: "tzif", run: ZoneFuzzing.run, seeds: ZoneFuzzing.seeds),
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
