/// How a day stands toward a streak.
public enum StreakMark: Hashable, Sendable {
    /// The goal met (a habit checked): the day counts.
    case counts
    /// Excused: the day neither counts nor breaks.
    case neutral
    /// Anything else: the day breaks a streak.
    case breaks
}

/// The runs of consecutive days that break no streak, kept up to date one changed day at a
/// time, so that a streak and the best one cost no scan of the history: a log changes one
/// day, which at most merges two runs; only a day that starts breaking (a removed drink, a
/// taken-back excuse) recounts the shorter side of the run it splits.
public struct StreakRuns: Hashable, Sendable {
    struct Run: Hashable, Sendable {
        var first: LocalDate
        var last: LocalDate
        /// The days of the run that count.
        var counted: Int
    }

    /// Sorted, disjoint, never adjacent (adjacent runs are one).
    private(set) var runs: [Run] = []
    /// How many runs count each number of days, for the best without a scan.
    private var runsByCount: [Int: Int] = [:]
    /// The most days any run counts: the best streak ever.
    public private(set) var best = 0

    public init() {}

    /// Builds the runs of `marked` (every day that does not break, in any order) in one pass.
    public init(marked: [(LocalDate, StreakMark)]) {
        for (date, mark) in marked.sorted(by: { $0.0 < $1.0 }) where mark != .breaks {
            let counted = mark == .counts ? 1 : 0
            if let last = runs.last, last.last.adding(days: 1) == date {
                runs[runs.count - 1].last = date
                runs[runs.count - 1].counted += counted
            } else if runs.last?.last != date {
                runs.append(Run(first: date, last: date, counted: counted))
            }
        }
        for run in runs { note(run.counted, by: 1) }
    }

    /// The streak that ends on `date`: the counted days of the run through it. On `today`, a day
    /// that would break is still open, so the streak runs up to the day before.
    /// - Parameter mark: any day's mark, to count part of a run.
    public func current(endingOn date: LocalDate, today: LocalDate, mark: (LocalDate) -> StreakMark) -> Int {
        let end = date == today && mark(date) == .breaks ? date.adding(days: -1) : date
        guard let index = run(containing: end) else { return 0 }
        let run = runs[index]
        if end == run.last { return run.counted }
        // Inside a run (future excused days after today, or a past week's Sunday): count the
        // shorter side.
        if end.days(to: run.last) < run.first.days(to: end) {
            return run.counted - Self.count(from: end.adding(days: 1), to: run.last, mark)
        }
        return Self.count(from: run.first, to: end, mark)
    }

    /// The best streak as it stood on `date` (a past week's board): the longest run that had
    /// ended by then, or the one running through it. From today on it is the best ever, at no
    /// cost (days to come can only be excused, which count for nothing, so a run reaching past
    /// today counts no more than it did today); before, the runs up to `date` are read.
    public func best(through date: LocalDate, today: LocalDate, mark: (LocalDate) -> StreakMark) -> Int {
        guard date < today, let newest = runs.last, date < newest.last else { return best }
        let after = insertionIndex(of: date)
        var best = current(endingOn: date, today: today, mark: mark)
        for run in runs[..<after] where run.last <= date { best = max(best, run.counted) }
        return best
    }

    /// Records that `date` went from `old` to `new`; `mark` gives every day's mark after it.
    public mutating func change(
        _ date: LocalDate, from old: StreakMark, to new: StreakMark, mark: (LocalDate) -> StreakMark
    ) {
        guard old != new else { return }
        let delta = (new == .counts ? 1 : 0) - (old == .counts ? 1 : 0)
        switch (old != .breaks, new != .breaks) {
        case (true, true):
            guard let index = run(containing: date) else { return }
            replace(
                index,
                with: [Run(first: runs[index].first, last: runs[index].last, counted: runs[index].counted + delta)])
        case (false, true):
            var merged = Run(first: date, last: date, counted: delta)
            var range = insertionIndex(of: date)..<insertionIndex(of: date)
            if range.lowerBound > 0, runs[range.lowerBound - 1].last.adding(days: 1) == date {
                range = (range.lowerBound - 1)..<range.upperBound
                merged.first = runs[range.lowerBound].first
                merged.counted += runs[range.lowerBound].counted
            }
            if range.upperBound < runs.count, runs[range.upperBound].first == date.adding(days: 1) {
                merged.last = runs[range.upperBound].last
                merged.counted += runs[range.upperBound].counted
                range = range.lowerBound..<(range.upperBound + 1)
            }
            replace(range, with: [merged])
        case (true, false):
            guard let index = run(containing: date) else { return }
            let run = runs[index]
            let rest = run.counted - (old == .counts ? 1 : 0)
            var parts: [Run] = []
            let left = date > run.first ? Run(first: run.first, last: date.adding(days: -1), counted: 0) : nil
            let right = date < run.last ? Run(first: date.adding(days: 1), last: run.last, counted: 0) : nil
            switch (left, right) {
            case (var left?, var right?):
                if left.first.days(to: left.last) <= right.first.days(to: right.last) {
                    left.counted = Self.count(from: left.first, to: left.last, mark)
                    right.counted = rest - left.counted
                } else {
                    right.counted = Self.count(from: right.first, to: right.last, mark)
                    left.counted = rest - right.counted
                }
                parts = [left, right]
            case (var left?, nil):
                left.counted = rest
                parts = [left]
            case (nil, var right?):
                right.counted = rest
                parts = [right]
            case (nil, nil): parts = []
            }
            replace(index, with: parts)
        case (false, false): break
        }
    }

    private static func count(from first: LocalDate, to last: LocalDate, _ mark: (LocalDate) -> StreakMark) -> Int {
        var count = 0
        var day = first
        while day <= last {
            if mark(day) == .counts { count += 1 }
            day = day.adding(days: 1)
        }
        return count
    }

    private mutating func replace(_ index: Int, with new: [Run]) {
        replace(index..<(index + 1), with: new)
    }

    private mutating func replace(_ range: Range<Int>, with new: [Run]) {
        for run in runs[range] { note(run.counted, by: -1) }
        for run in new { note(run.counted, by: 1) }
        runs.replaceSubrange(range, with: new)
    }

    private mutating func note(_ counted: Int, by change: Int) {
        let runs = runsByCount[counted, default: 0] + change
        runsByCount[counted] = runs == 0 ? nil : runs
        if change > 0 {
            best = max(best, counted)
        } else if runs == 0 && counted == best {
            best = runsByCount.keys.max() ?? 0
        }
    }

    /// The first run that starts after `date`.
    private func insertionIndex(of date: LocalDate) -> Int {
        var (low, high) = (0, runs.count)
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].first <= date { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func run(containing date: LocalDate) -> Int? {
        let index = insertionIndex(of: date) - 1
        return index >= 0 && runs[index].last >= date ? index : nil
    }
}
