/// What the rest of the household sees of a member (`proto/board.proto` has the rules). Kept in
/// the member's own archive: it is the member's choice about their own figures, written by them
/// like their goal, journaled with their other writes, and carried by their export and import.
public enum Privacy: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Everything, millilitres too.
    case full = 0
    /// Rank, percent, days met, streak and habit check-ins; no millilitres or entry counts.
    case percent = 1
    /// Off everyone else's board; the member still sees themself, ranked among the others.
    case hidden = 2

    /// The word `water-client privacy` takes and shows.
    public var description: String {
        switch self {
        case .full: "full"
        case .percent: "percent"
        case .hidden: "hidden"
        }
    }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    /// What the others see, in words: what `whoami` and `board` say.
    public var othersSee: String {
        switch self {
        case .full: "others see everything of yours on the board, millilitres too"
        case .percent:
            "others see your rank, percent, days met and streak, not your millilitres; \(Self.actingForReadsAll)"
        case .hidden: "others do not see you on the board at all; \(Self.actingForReadsAll)"
        }
    }

    /// What no privacy level hides, said where one is chosen: a member who may act for another
    /// (an admin, a child's guardian) reads their diary with `--for`, as it is.
    static let actingForReadsAll = "admins and guardians still see every drink with --for"

    /// The same, said of another member (a child's, set by a guardian).
    public var othersSeeOfThem: String {
        switch self {
        case .full: "others see everything of theirs on the board, millilitres too"
        case .percent:
            "others see their rank, percent, days met and streak, not their millilitres; \(Self.actingForReadsAll)"
        case .hidden: "others do not see them on the board at all; \(Self.actingForReadsAll)"
        }
    }
}
