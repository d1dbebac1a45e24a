extension Array {
    /// Puts `element` in place of the first one with the same `key`, else at the end: a drink or
    /// a cup set again under its name keeps its place in the list.
    mutating func replaceOrAppend<Key: Equatable>(_ element: Element, sameKey key: (Element) -> Key) {
        if let index = firstIndex(where: { key($0) == key(element) }) {
            self[index] = element
        } else {
            append(element)
        }
    }
}
