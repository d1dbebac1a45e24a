extension RandomAccessCollection where Index == Int {
    /// In a collection sorted by `key`, the index of the last element whose key is at most
    /// `bound` (a binary search); nil when there is none.
    func lastIndex<Key: Comparable>(atOrBefore bound: Key, by key: (Element) -> Key) -> Int? {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if key(self[middle]) <= bound { low = middle + 1 } else { high = middle }
        }
        return low == startIndex ? nil : low - 1
    }
}
