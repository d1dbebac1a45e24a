import CZlib

/// A zlib failure: the C return code and zlib's own message.
public struct ZlibError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String

    public var description: String { "zlib error \(code): \(message)" }
}

/// One-shot zlib (RFC 1950) compression for frame payloads and archive files.
public enum Zlib {
    /// Why an inflate stopped short.
    public enum InflateError: Error, Hashable, Sendable {
        /// The data would inflate past `limit` bytes; nothing beyond the limit was produced.
        case tooLarge(limit: Int)
        /// The data would inflate past `maximumRatio` times its own size; inflating stopped there.
        case ratioExceeded(maximumRatio: Int)
        /// The data is not a complete zlib stream.
        case corrupt(ZlibError)
    }

    /// Compresses `bytes` into a zlib stream.
    public static func compress(_ bytes: some Collection<UInt8>, level: Int32 = Z_DEFAULT_COMPRESSION) -> [UInt8] {
        var output: [UInt8] = []
        withContiguousBytes(of: bytes) { compress($0, appendingTo: &output, level: level) }
        return output
    }

    /// Compresses `input` onto the end of `output`.
    package static func compress(
        _ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION
    ) {
        var stream = z_stream()
        // - Z_OK: ready. Z_MEM_ERROR, Z_STREAM_ERROR, Z_VERSION_ERROR: out of memory, or a bug
        //   (bad level or a zlib build we were not compiled against); nothing to recover.
        let status = CZlib_deflateInit2(&stream, level, MAX_WBITS)
        precondition(status == Z_OK, "deflateInit2 failed with \(status)")
        defer { deflateEnd(&stream) }

        let bound = Int(deflateBound(&stream, uLong(input.count)))
        let start = output.count
        output.appendZeros(bound)
        let produced = output.withUnsafeMutableBufferPointer { outputBuffer in
            // zlib's next_in is not const, but deflate never writes through it.
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = outputBuffer.baseAddress! + start
            stream.avail_out = uInt(bound)
            // - Z_STREAM_END: all input compressed; deflateBound guarantees the room.
            let status = deflate(&stream, Z_FINISH)
            precondition(status == Z_STREAM_END, "deflate with deflateBound room returned \(status)")
            return bound - Int(stream.avail_out)
        }
        output.removeLast(bound - produced)
    }

    /// Inflates a zlib stream, refusing to produce more than `limit` bytes, or more than
    /// `maximumRatio` times the stream's own size when given.
    ///
    /// Memory grows with what is actually produced, never with what a header claims, so a
    /// small "zlib bomb" costs at most `limit` bytes before it is rejected.
    /// - Throws: ``InflateError/tooLarge(limit:)`` past the limit,
    ///   ``InflateError/ratioExceeded(maximumRatio:)`` past the ratio,
    ///   ``InflateError/corrupt(_:)`` for anything that is not exactly one complete zlib stream.
    public static func decompress(_ bytes: some Collection<UInt8>, limit: Int, maximumRatio: Int? = nil)
        throws(InflateError) -> [UInt8]
    {
        var output = GrowableBytes()
        try withContiguousBytes(of: bytes) { (input) throws(InflateError) in
            try decompress(input, into: &output, limit: limit, maximumRatio: maximumRatio)
        }
        return Array(output.bytes)
    }

    /// The same, appending to `output` (a buffer used again for every frame). Inflating stops
    /// as soon as the output passes the limit or the ratio, so refusing a bomb costs no more
    /// than the bytes it is allowed.
    package static func decompress(
        _ input: UnsafeRawBufferPointer, into output: inout GrowableBytes, limit: Int, maximumRatio: Int?
    ) throws(InflateError) {
        let ratioLimit = maximumRatio.map { $0.multipliedReportingOverflow(by: input.count) }
            .map { $0.overflow ? Int.max : $0.partialValue }
        let allowed = min(limit, ratioLimit ?? .max)
        let refusal: InflateError =
            if let ratioLimit, let maximumRatio, ratioLimit < limit {
                .ratioExceeded(maximumRatio: maximumRatio)
            } else {
                .tooLarge(limit: limit)
            }
        var stream = z_stream()
        let initStatus = CZlib_inflateInit2(&stream, MAX_WBITS)
        precondition(initStatus == Z_OK, "inflateInit2 failed with \(initStatus)")
        defer { inflateEnd(&stream) }

        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        var produced = 0
        while true {
            // Room for one byte past what is allowed: producing it proves the data is too large.
            let remaining = allowed - produced
            let room = min(
                max(output.capacity - output.count, 16 * 1024, 4 * input.count), Int(UInt32.max),
                remaining < .max ? remaining + 1 : remaining)
            let status = output.appendInPlace(minimumRoom: room) { buffer in
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(room)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (room - Int(stream.avail_out), status)
            }
            produced = Int(stream.total_out)
            if produced > allowed { throw refusal }
            switch status {
            case Z_STREAM_END:
                // Trailing bytes after the stream are not part of any valid payload.
                guard stream.avail_in == 0 else {
                    throw .corrupt(ZlibError(code: Z_DATA_ERROR, message: "bytes after the zlib stream"))
                }
                return
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.avail_in == 0:
                // - Z_BUF_ERROR with no input left: the stream ended before its end mark.
                throw .corrupt(ZlibError(code: status, message: "truncated zlib stream"))
            default:
                // - Z_DATA_ERROR: corrupt input. Z_NEED_DICT: a preset dictionary we never use.
                // - Z_MEM_ERROR: out of memory.
                let message = stream.msg.map { String(cString: $0) } ?? "inflate failed"
                throw .corrupt(ZlibError(code: status, message: message))
            }
        }
    }
}
