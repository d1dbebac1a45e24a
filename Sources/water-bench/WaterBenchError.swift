import WaterProtocol

/// A benchmark that could not run as planned.
struct WaterBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `value`, or an error naming `what` is missing.
func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw WaterError(.internal, "missing \(what)") }
    return value
}
