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
        /// The data is not a complete zlib stream.
        case corrupt(ZlibError)
    }

    /// Compresses `bytes` into a zlib stream.
    public static func compress(_ bytes: some Collection<UInt8>, level: Int32 = Z_DEFAULT_COMPRESSION) -> [UInt8] {
        var stream = z_stream()
        // - Z_OK: ready. Z_MEM_ERROR, Z_STREAM_ERROR, Z_VERSION_ERROR: out of memory, or a bug
        //   (bad level or a zlib build we were not compiled against); nothing to recover.
        let status = CZlib_deflateInit2(&stream, level, MAX_WBITS)
        precondition(status == Z_OK, "deflateInit2 failed with \(status)")
        defer { deflateEnd(&stream) }

        var input = Array(bytes)
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let produced = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                // - Z_STREAM_END: all input compressed; deflateBound guarantees the room.
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate with deflateBound room returned \(status)")
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        output.removeLast(output.count - produced)
        return output
    }

    /// Inflates a zlib stream, refusing to produce more than `limit` bytes.
    ///
    /// Memory grows with what is actually produced, never with what a header claims, so a
    /// small "zlib bomb" costs at most `limit` bytes before it is rejected.
    /// - Throws: ``InflateError/tooLarge(limit:)`` past the limit, ``InflateError/corrupt(_:)``
    ///   for anything that is not exactly one complete zlib stream.
    public static func decompress(_ bytes: some Collection<UInt8>, limit: Int) throws(InflateError) -> [UInt8] {
        var stream = z_stream()
        let initStatus = CZlib_inflateInit2(&stream, MAX_WBITS)
        precondition(initStatus == Z_OK, "inflateInit2 failed with \(initStatus)")
        defer { inflateEnd(&stream) }

        var input = Array(bytes)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let result: Result<Void, InflateError> = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, chunkBuffer.count - Int(stream.avail_out))
                }
                if output.count + produced > limit { return .failure(.tooLarge(limit: limit)) }
                output.append(contentsOf: chunk[..<produced])
                switch status {
                case Z_STREAM_END:
                    // Trailing bytes after the stream are not part of any valid payload.
                    guard stream.avail_in == 0 else {
                        return .failure(.corrupt(ZlibError(code: Z_DATA_ERROR, message: "bytes after the zlib stream")))
                    }
                    return .success(())
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    // - Z_BUF_ERROR with no input left: the stream ended before its end mark.
                    return .failure(.corrupt(ZlibError(code: status, message: "truncated zlib stream")))
                default:
                    // - Z_DATA_ERROR: corrupt input. Z_NEED_DICT: a preset dictionary we never use.
                    // - Z_MEM_ERROR: out of memory.
                    let message = stream.msg.map { String(cString: $0) } ?? "inflate failed"
                    return .failure(.corrupt(ZlibError(code: status, message: message)))
                }
            }
        }
        try result.get()
        return output
    }
}
