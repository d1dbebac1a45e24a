/// The seed's seven habit icons (SF Symbols names), in its order.
public enum HabitIcon: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case alarm, book, pencil, desktopcomputer, gamecontroller, sportscourt, lightbulb

    public var description: String { Self.names[rawValue] }

    /// The icon called `name`, as the seed spells it.
    public init?(name: String) {
        guard let index = Self.names.firstIndex(of: name.lowercased()) else { return nil }
        self.init(rawValue: index)
    }

    private static let names = [
        "alarm", "book", "pencil", "desktopcomputer", "gamecontroller", "sportscourt", "lightbulb",
    ]
}

/// The seed's nine theme colours, in its order.
public enum HabitColor: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case blue, green, yellow, orange, coral, pink, purple, indigo, red

    /// The seed's sRGB components (0-255).
    public var rgb: (red: UInt8, green: UInt8, blue: UInt8) {
        switch self {
        case .blue: (75, 166, 239)
        case .green: (161, 206, 97)
        case .yellow: (248, 214, 80)
        case .orange: (243, 176, 74)
        case .coral: (238, 140, 111)
        case .pink: (237, 113, 165)
        case .purple: (207, 102, 247)
        case .indigo: (77, 110, 247)
        case .red: (236, 107, 102)
        }
    }

    public var description: String { Self.names[rawValue] }

    public init?(name: String) {
        guard let index = Self.names.firstIndex(of: name.lowercased()) else { return nil }
        self.init(rawValue: index)
    }

    private static let names = ["blue", "green", "yellow", "orange", "coral", "pink", "purple", "indigo", "red"]
}

/// A habit of one member: the seed's `HabitItem`, with the days checked instead of a fixed
/// 7-slot list, so every week keeps its own check list.
public struct Habit: Hashable, Sendable {
    public var id: RecordID
    /// Kept to ``SharedText/habitName``.
    public var name: String
    public var icon: HabitIcon
    public var color: HabitColor
    public var createdAtUnixMilliseconds: Int64
    public var checkedDays: Set<LocalDate>

    public init(
        id: RecordID, name: String, icon: HabitIcon, color: HabitColor, createdAtUnixMilliseconds: Int64,
        checkedDays: Set<LocalDate> = []
    ) {
        self.id = id
        self.name = name
        self.icon = icon
        self.color = color
        self.createdAtUnixMilliseconds = createdAtUnixMilliseconds
        self.checkedDays = checkedDays
    }
}
