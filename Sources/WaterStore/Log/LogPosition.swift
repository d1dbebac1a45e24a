/// A place in the shared log: a segment's generation and a byte offset in it. Positions grow
/// with every frame written, across segments.
///
/// A snapshot names the position up to which it holds its archive's records: the archive's
/// chunks in frames ending at or before it are folded in, the ones after it follow it.
///
/// Only the store makes positions (its memberwise init is internal); others read them.
public struct LogPosition: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var generation: UInt64
    public var offset: Int

    /// Before every frame of every segment.
    public static let start = LogPosition(generation: 0, offset: 0)

    public static func < (lhs: LogPosition, rhs: LogPosition) -> Bool {
        (lhs.generation, lhs.offset) < (rhs.generation, rhs.offset)
    }

    public var description: String { "log \(LogSegment.name(generation: generation)) byte \(offset)" }
}
