/// The form of a name people type and the server keeps: a lowercase ASCII letter first, then
/// letters, digits and the form's marks, up to a length. Usernames and drink names share it.
struct NameForm {
    let maximumBytes: Int
    /// Besides a-z and 0-9 (after the first letter): `_` for usernames, `-` for both.
    let allowsUnderscore: Bool

    static let username = NameForm(maximumBytes: 32, allowsUnderscore: true)
    static let drink = NameForm(maximumBytes: 15, allowsUnderscore: false)

    /// Read over the UTF-8 view in place: a diary checks every entry's drink when it loads.
    func matches(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard (1...maximumBytes).contains(utf8.count), let first = utf8.first, (0x61...0x7a).contains(first) else {
            return false
        }
        return utf8.allSatisfy {
            (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || (allowsUnderscore && $0 == 0x5f)
        }
    }
}
