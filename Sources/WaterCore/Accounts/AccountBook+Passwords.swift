/// How long a password may be.
extension AccountBook {
    /// The shortest password accepted.
    public static let minimumPasswordLength = 8

    /// The longest password accepted, in bytes of UTF-8: a `Login` must fit the 4096-byte frame
    /// a connection may send before it has logged in (with the envelope, the method's name and a
    /// 32-byte username, a 1024-byte password leaves room to spare), so a longer password could
    /// be set but never used.
    public static let maximumPasswordBytes = 1024

    /// Refuses a new password that is too short or too long; `field` names it in the error.
    public static func checkPassword(_ password: String, field: String) throws(DomainError) {
        guard password.count >= minimumPasswordLength else {
            throw .invalid(field, "a password must be at least \(minimumPasswordLength) characters")
        }
        try checkPasswordLength(password, field: field)
    }

    /// Refuses a password longer than ``maximumPasswordBytes``: one typed at login, or a new one.
    public static func checkPasswordLength(_ password: String, field: String) throws(DomainError) {
        guard password.utf8.count <= maximumPasswordBytes else {
            throw .invalid(
                field,
                "a password must be at most \(maximumPasswordBytes) bytes (UTF-8), got \(password.utf8.count)")
        }
    }
}
