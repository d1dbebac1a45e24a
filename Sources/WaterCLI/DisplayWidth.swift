extension String {
    /// How many terminal columns the text takes: a character (grapheme) made only of combining
    /// marks or format characters takes none, an East Asian wide one or an emoji two, any other
    /// one (with its combining marks: `ë`) one. What lines up names in a table.
    public var displayWidth: Int {
        reduce(0) { $0 + $1.displayWidth }
    }

    /// The text in lines of at most `width` columns, broken at spaces (a word longer than a
    /// line is cut where the line ends): what a message needs on a terminal, which would
    /// otherwise break it mid-word at its edge.
    public func wrapped(columns width: Int) -> [String] {
        guard width > 0 else { return [self] }
        var lines: [String] = []
        var line = ""
        for word in split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            if !line.isEmpty, line.displayWidth + 1 + word.displayWidth <= width {
                line += " " + word
                continue
            }
            if !line.isEmpty { lines.append(line) }
            while word.displayWidth > width {
                let head = word.prefix(columns: width)
                lines.append(head)
                word = String(word.dropFirst(head.count))
            }
            line = word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// The longest start of the text that fits in `width` columns.
    public func prefix(columns width: Int) -> String {
        var used = 0
        var end = startIndex
        for (index, character) in zip(indices, self) {
            used += character.displayWidth
            guard used <= width else { break }
            end = self.index(after: index)
        }
        return String(self[..<end])
    }
}

extension Character {
    /// 0, 1 or 2 columns (``Swift/String/displayWidth``).
    public var displayWidth: Int {
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) { return 2 }
        if scalars.allSatisfy({ [.nonspacingMark, .enclosingMark, .format].contains($0.properties.generalCategory) }) {
            return 0
        }
        return Self.isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, by range).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default: false
        }
    }
}
