import WaterCore

/// A member's realistic history: about ten drinks a day between 07:00 and 23:00, from the
/// quick cups (mostly the usual 250 ml), logged by water-client "now", so each id is the
/// client's time-ordered id of that moment.
public struct RealisticHistory {
    public static let installation: UInt64 = 0x2A5F_1C3D_9E4B_7788
    public static let start: Int64 = 1_640_995_200_000  // 2022-01-01 00:00 UTC

    var random: SplitMix

    public init(seed: UInt64) {
        random = SplitMix(seed: seed)
    }

    public mutating func entries(days: Int, startingAt start: Int64 = start) -> [WaterEntry] {
        var entries: [WaterEntry] = []
        let cups: [Int32] = [250, 250, 250, 250, 150, 350, 500]
        for day in 0..<days {
            let count = 7 + Int(random.next() % 7)  // 7 to 13, about 10
            let dayStart = start + Int64(day) * 86_400_000 + 7 * 3_600_000
            let times = (0..<count).map { _ in dayStart + Int64(random.next() % (16 * 3_600_000)) }.sorted()
            for time in times {
                let cup = cups[Int(random.next() % UInt64(cups.count))]
                entries.append(
                    WaterEntry(
                        id: .timeOrdered(unixMilliseconds: time, counter: 0, installation: Self.installation),
                        amountMillilitres: cup, unixMilliseconds: time))
            }
        }
        return entries
    }
}

/// A small, fast, seedable generator, so a run can be repeated exactly.
public struct SplitMix: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
