/// Runs `body` on the bytes of `collection` in contiguous memory: in place for an array or a
/// slice of one, else in a copy. Typed throws pass through (the standard library's
/// `withContiguousStorageIfAvailable` only rethrows untyped errors).
@inlinable func withContiguousBytes<Result, Failure: Error>(
    of collection: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
) throws(Failure) -> Result {
    func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Swift.Result<Result, Failure> {
        Swift.Result { () throws(Failure) in try body(UnsafeRawBufferPointer(buffer)) }
    }
    return try (collection.withContiguousStorageIfAvailable(run) ?? Array(collection).withUnsafeBufferPointer(run))
        .get()
}
