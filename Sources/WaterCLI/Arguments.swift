/// A command line being taken apart: options first come, first served, then positionals.
///
/// Options are long (`--server HOST:PORT` or `--server=HOST:PORT`); whatever is left at
/// ``finish()`` that looks like an option is a usage error.
public struct Arguments {
    private var words: [String]

    public init(_ words: some Sequence<String>) {
        self.words = Array(words)
    }

    /// Whether `--name` was given (and removes it).
    public mutating func flag(_ name: String) -> Bool {
        guard let index = words.firstIndex(of: "--\(name)") else { return false }
        words.remove(at: index)
        return true
    }

    /// Whether the single-letter `-name` was given (and removes it): `-h`.
    public mutating func shortFlag(_ name: Character) -> Bool {
        guard let index = words.prefix(while: { $0 != "--" }).firstIndex(of: "-\(name)") else { return false }
        words.remove(at: index)
        return true
    }

    /// The words left that are options (before a `--`): `--name`, `--name=value` and `-x`, but
    /// not a negative number, which is a (wrong) value.
    public var optionWords: [String] {
        words.prefix(while: { $0 != "--" }).filter { word in
            guard word.hasPrefix("-"), word.count > 1 else { return false }
            return word.hasPrefix("--") || !(word.dropFirst().first?.isNumber ?? false)
        }
    }

    /// The value of `--name VALUE` or `--name=VALUE`, or nil when absent.
    public mutating func option(_ name: String) throws(UsageError) -> String? {
        if let index = words.firstIndex(where: { $0.hasPrefix("--\(name)=") }) {
            return String(words.remove(at: index).dropFirst(name.count + 3))
        }
        guard let index = words.firstIndex(of: "--\(name)") else { return nil }
        guard index + 1 < words.count else { throw UsageError("--\(name) needs a value") }
        let value = words[index + 1]
        words.removeSubrange(index...(index + 1))
        return value
    }

    /// An integer option within `range`.
    public mutating func integer<T: FixedWidthInteger>(_ name: String, in range: ClosedRange<T>) throws(UsageError)
        -> T?
    {
        guard let text = try option(name) else { return nil }
        guard let value = T(text), range.contains(value) else {
            throw UsageError(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }

    /// The next word that is not an option, or nil.
    public mutating func positional() -> String? {
        guard let index = words.firstIndex(where: { !$0.hasPrefix("--") || $0 == "--" }) else { return nil }
        if words[index] == "--" {
            words.remove(at: index)
            return words.isEmpty ? nil : words.remove(at: index)
        }
        return words.remove(at: index)
    }

    /// The one word left that is not an option, with nothing else left (``finish()``); a usage
    /// error saying `missing` when there is none.
    public mutating func onlyPositional(missing: String) throws(UsageError) -> String {
        guard let word = positional() else { throw UsageError(missing) }
        try finish()
        return word
    }

    /// The next word, whatever it is, without taking it.
    public var nextWord: String? { words.first }

    /// Fails on anything not taken.
    public func finish() throws(UsageError) {
        if let extra = words.first {
            throw UsageError(extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument \"\(extra)\"")
        }
    }
}

/// A command line that does not parse: exit 64 with the message and a pointer to `--help`.
public struct UsageError: Error, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// sysexits.h codes, as DESIGN.md section 8 lists them.
public enum ExitCode: Int32, Sendable {
    case ok = 0
    case failure = 1
    case usage = 64
    case dataError = 65
    /// EX_NOINPUT: a file named on the command line cannot be read.
    case noInput = 66
    case unavailable = 69
    case notAllowed = 77
}
