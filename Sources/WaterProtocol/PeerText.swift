/// What a peer sent, as a status message or a log line may repeat it: never whole. At most
/// `limit` characters, escaped as a Swift string literal (quotes, control characters, U+0000),
/// with the full length in bytes when it was cut. A 900 KB method name thus costs a status
/// message and a log line about 60 bytes.
public func quotedPeerText(_ text: some StringProtocol, limit: Int = 40) -> String {
    peerText(text, limit: limit) { $0.debugDescription }
}

/// What a peer sent, bounded as ``quotedPeerText(_:limit:)`` bounds it but not quoted: for a
/// log value, which the log escapes and quotes itself (quoting it here too wrote `"\"dad\""`).
public func boundedPeerText(_ text: some StringProtocol, limit: Int = 40) -> String {
    peerText(text, limit: limit) { $0 }
}

/// The first `limit` characters of `text`, written by `form`, and its length when it was cut.
private func peerText(_ text: some StringProtocol, limit: Int, _ form: (String) -> String) -> String {
    let prefix = String(text.prefix(limit))
    guard prefix.utf8.count < text.utf8.count else { return form(prefix) }
    return "\(form(prefix))… (\(text.utf8.count) bytes)"
}
