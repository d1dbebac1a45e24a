/// What `water-client prompt` prints, kept as a few lines of text beside the cache, so that the
/// prompt reads one small file and decodes no JSON (in a binary this size, Codable's dynamic
/// casts alone cost a millisecond).
public struct PromptFigures: Equatable, Sendable {
    public var date: String
    public var amountMl: Int32
    public var goalMl: Int32
    /// Writes of any kind waiting in the outbox (what `*` says).
    public var unsent: Int
    public var timeZone: String
    public var updatedAtUnixMs: Int64
    /// Whether the server's figures are of that date (not only drinks waiting to be sent).
    public var heardToday: Bool
    /// Whether the server has said anything yet (a new login has not): else prompt shows "?".
    public var heard: Bool
    /// Who overtook the member on the board on `date` (display names, control characters left
    /// out: one line of the file).
    public var overtaken: [String]

    /// The file beside the cache at `path` (in its server's directory).
    public static func path(besideCache path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) + "/prompt"
    }

    var text: String {
        """
        date \(date)
        amount_ml \(amountMl)
        goal_ml \(goalMl)
        unsent \(unsent)
        time_zone \(timeZone)
        updated_at_unix_ms \(updatedAtUnixMs)
        heard_today \(heardToday ? 1 : 0)
        heard \(heard ? 1 : 0)
        overtaken \(overtaken.map { String($0.unicodeScalars.filter { $0.properties.generalCategory != .control && $0 != "\t" }) }.joined(separator: "\t"))

        """
    }

    public init(
        date: String, amountMl: Int32, goalMl: Int32, unsent: Int, timeZone: String, updatedAtUnixMs: Int64,
        heardToday: Bool, heard: Bool, overtaken: [String] = []
    ) {
        self.date = date
        self.amountMl = amountMl
        self.goalMl = goalMl
        self.unsent = unsent
        self.timeZone = timeZone
        self.updatedAtUnixMs = updatedAtUnixMs
        self.heardToday = heardToday
        self.heard = heard
        self.overtaken = overtaken
    }

    public init?(text: String) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = line[line.index(after: space)...]
        }
        guard let date = fields["date"], let amount = fields["amount_ml"].flatMap({ Int32($0) }),
            let goal = fields["goal_ml"].flatMap({ Int32($0) }), let unsent = fields["unsent"].flatMap({ Int($0) }),
            let updated = fields["updated_at_unix_ms"].flatMap({ Int64($0) })
        else { return nil }
        self.init(
            date: String(date), amountMl: amount, goalMl: goal, unsent: unsent,
            timeZone: String(fields["time_zone"] ?? ""), updatedAtUnixMs: updated,
            heardToday: fields["heard_today"] == "1", heard: fields["heard"] == "1",
            overtaken: (fields["overtaken"] ?? "").split(separator: "\t").map(String.init))
    }
}
