import CProtobufC

/// A ``WireMessage`` to and from protobuf's wire format, through protobuf-c, with the C memory
/// in a ``WireArena``: packed into the end of a caller's buffer or into the arena, unpacked from
/// borrowed bytes. The generic entry points are inlinable, so a caller in another module gets
/// them specialised for its message type.
package enum WireCodec {
    // MARK: Encoding

    /// Builds `message`'s protobuf-c struct in `arena`; valid until the arena is reset.
    @inlinable package static func build<Message: WireMessage>(_ message: Message, in arena: WireArena)
        -> UnsafePointer<ProtobufCMessage>
    {
        let builder = MessageBuilder(descriptor: Message.wireDescriptor.pointer, arena: arena)
        message.encodeFields(into: builder)
        return builder.message
    }

    /// Packs `message` onto the end of `buffer`, which grows at most once.
    /// - Returns: how many bytes were appended.
    @inlinable @discardableResult
    package static func pack<Message: WireMessage>(
        _ message: Message, appendingTo buffer: inout [UInt8], arena: WireArena
    ) -> Int {
        pack(build(message, in: arena), appendingTo: &buffer)
    }

    /// Packs a built struct onto the end of `buffer`.
    /// - Returns: how many bytes were appended.
    @discardableResult
    package static func pack(_ message: UnsafePointer<ProtobufCMessage>, appendingTo buffer: inout [UInt8]) -> Int {
        let size = protobuf_c_message_get_packed_size(message)
        // An empty message packs to nothing; touching an empty array's storage would write the
        // count of the storage all empty arrays share, from every thread doing so (TSan saw it).
        guard size > 0 else { return 0 }
        let start = buffer.count
        buffer.appendZeros(size)
        let packed = buffer.withUnsafeMutableBufferPointer { protobuf_c_message_pack(message, $0.baseAddress! + start) }
        precondition(packed == size, "protobuf-c packed \(packed) of \(size) bytes")
        return size
    }

    /// Packs a built struct into the arena: the bytes, valid until the arena is reset (a
    /// payload for an envelope's bytes field, packed once, never copied into an array).
    package static func packed(_ message: UnsafePointer<ProtobufCMessage>, in arena: WireArena)
        -> UnsafeRawBufferPointer
    {
        let size = protobuf_c_message_get_packed_size(message)
        guard size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let bytes = arena.allocate(byteCount: size)
        let packed = protobuf_c_message_pack(message, bytes.assumingMemoryBound(to: UInt8.self))
        precondition(packed == size, "protobuf-c packed \(packed) of \(size) bytes")
        return UnsafeRawBufferPointer(start: bytes, count: size)
    }

    /// `message` in a new array, built in an arena of its own.
    @inlinable package static func pack<Message: WireMessage>(_ message: Message) -> [UInt8] {
        var bytes: [UInt8] = []
        pack(message, appendingTo: &bytes, arena: WireArena(initialBlockSize: 1024))
        return bytes
    }

    // MARK: Decoding

    /// Unpacks `bytes` with protobuf-c into `arena` and reads the message out (its strings and
    /// bytes copied into the Swift value, so it outlives the arena's reset). Unknown fields are
    /// skipped, as proto3 requires, so older peers read newer messages.
    /// - Throws: ``DecodeError/Code/malformed`` when the bytes are not a valid encoding of the
    ///   message, or a string field holds U+0000 or is not UTF-8 (naming the field); a refusal
    ///   under `limits` (``WireCheck``).
    @inlinable package static func unpack<Message: WireMessage>(
        _ type: Message.Type, from bytes: UnsafeRawBufferPointer, arena: WireArena, limits: DecodeLimits
    ) throws(DecodeError) -> Message {
        let descriptor = Message.wireDescriptor.pointer
        let unpacked = try unpackStruct(descriptor, from: bytes, arena: arena, limits: limits)
        return Message(wire: MessageReader(descriptor: descriptor, storage: unpacked))
    }

    /// The same, from any bytes, in an arena of its own.
    @inlinable package static func unpack<Message: WireMessage>(
        _ type: Message.Type, from bytes: some Collection<UInt8>, limits: DecodeLimits = .unlimited
    ) throws(DecodeError) -> Message {
        let blockSize = max(1024, 4 * bytes.count)
        let arena = WireArena(initialBlockSize: blockSize, maximumRetainedBytes: blockSize)
        return try withContiguousBytes(of: bytes) { (bytes) throws(DecodeError) in
            try unpack(type, from: bytes, arena: arena, limits: limits)
        }
    }

    /// Checks `bytes` under `limits`, then unpacks them into `arena` as a message of
    /// `descriptor`: the struct, valid until the arena is reset.
    /// - Throws: what ``unpack(_:from:arena:limits:)`` throws, and ``DecodeError/Code/tooLarge`` for a
    ///   message that would need more memory than ``DecodeLimits/memoryBudget(forInputLength:)``.
    @usableFromInline package static func unpackStruct(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, from bytes: UnsafeRawBufferPointer,
        arena: WireArena, limits: DecodeLimits
    ) throws(DecodeError) -> UnsafeRawPointer {
        try WireCheck.check(bytes, descriptor, limits: limits)
        let (message, overBudget) = arena.unpack(
            descriptor, from: bytes, budget: limits.memoryBudget(forInputLength: bytes.count))
        let name = { String(cString: descriptor.pointee.short_name) }
        guard !overBudget else {
            throw DecodeError(
                .tooLarge, "a \(name()) of \(bytes.count) bytes would take too much memory to decode")
        }
        guard let message else {
            throw DecodeError(.malformed, "malformed \(name()): not a valid protobuf encoding")
        }
        return UnsafeRawPointer(message)
    }
}
