import Foundation

/// A repository file's text with its line breaks and runs of spaces made single spaces: what the
/// tests that hold the documentation to the code (`LoginLimitsDocumentedTests`, the broker's
/// limits) search for a statement in.
/// - Parameter path: relative to the repository's root (`deploy/README.md`).
public func repositoryText(_ path: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../\(path)")
    let text = try String(contentsOf: url.standardizedFileURL, encoding: .utf8)
    return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}
