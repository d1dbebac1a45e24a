import CSodium
import WaterProtocol

/// What a watcher was last sent, as 32 bytes: the BLAKE2b-256 digest of the board's encoding
/// with its time of making left out. Two boards with the same digest look the same to their
/// watcher, so the second is not sent: it would only tell when someone they cannot see wrote.
struct BoardDigest: Equatable, Sendable {
    private let bytes: [UInt8]

    init(_ board: WaterV1.WeeklyBoard) {
        var timeless = board
        timeless.generatedAtUnixMs = 0
        let encoded = timeless.serializedBytes()
        var digest = [UInt8](repeating: 0, count: 32)
        // - 0: done (it cannot fail for these lengths).
        crypto_generichash(&digest, 32, encoded, UInt64(encoded.count), nil, 0)
        bytes = digest
    }
}
