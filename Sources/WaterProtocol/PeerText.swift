/// What a peer sent, as a status message or a log line may repeat it: never whole. At most
/// `limit` characters, escaped as a Swift string literal (quotes, control characters, U+0000),
/// with the full length in bytes when it was cut. A 900 KB method name thus costs a status
/// message and a log line about 60 bytes.
public func quotedPeerText(_ text: some StringProtocol, limit: Int = 40) -> String {
    let prefix = String(text.prefix(limit))
    let quoted = prefix.debugDescription
    guard prefix.utf8.count < text.utf8.count else { return quoted }
    return "\(quoted)… (\(text.utf8.count) bytes)"
}
