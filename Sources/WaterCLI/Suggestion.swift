/// "Did you mean": the known word closest to a mistyped one, as git suggests `status` for `stauts`.
public enum Suggestion {
    /// The candidate nearest to `word`: one it starts (`hist` → `history`), or one a few edits
    /// away (a third of the word's length, at least one; a swap of two letters is one edit).
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard !typed.isEmpty else { return nil }
        let limit = max(1, typed.count / 3)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let distance =
                candidate.hasPrefix(word) && typed.count >= 2
                ? 0 : editDistance(typed, Array(candidate.lowercased()))
            guard distance <= limit, distance < (best?.distance ?? .max) else { continue }
            best = (candidate, distance)
        }
        return best?.candidate
    }

    /// The zone name nearest to what was typed (`Tokio` -> `Asia/Tokyo`, `new york` ->
    /// `America/New_York`): a whole name, else the city part of one, spaces read as `_`.
    public static func closestZone(to typed: String, among names: [String]) -> String? {
        let word = typed.replacing(" ", with: "_")
        if let name = closest(to: word, among: names) { return name }
        let cities = names.map { String($0.split(separator: "/").last ?? "") }
        guard let city = closest(to: word, among: cities), let index = cities.firstIndex(of: city) else { return nil }
        return names[index]
    }

    /// ` (did you mean "log"?)`, or nothing when no candidate is close.
    public static func didYouMean(_ word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters each cost one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
