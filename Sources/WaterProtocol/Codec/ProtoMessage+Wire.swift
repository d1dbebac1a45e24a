import CProtobufC

extension ProtoMessage {
    /// Decodes a message from protobuf's wire format with protobuf-c.
    ///
    /// Unknown fields are skipped, as proto3 requires, so older peers read newer messages.
    /// - Throws: ``WaterError`` with ``StatusCode/invalidArgument`` when the bytes are not a
    ///   valid encoding of this message.
    public init(serializedBytes bytes: some Collection<UInt8>) throws(WaterError) {
        let descriptor = DescriptorRegistry.descriptor(of: Self.self).pointer
        let contiguous = Array(bytes)
        let unpacked = contiguous.withUnsafeBufferPointer { buffer in
            // - NULL: the bytes are not a valid encoding (or memory ran out).
            protobuf_c_message_unpack(descriptor, nil, buffer.count, buffer.baseAddress)
        }
        guard let unpacked else {
            throw WaterError(.invalidArgument, "malformed \(Self.protoName): not a valid protobuf encoding")
        }
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        let reader = MessageReader(descriptor: descriptor, storage: UnsafeRawPointer(unpacked))
        do {
            self = try Self(from: MessageDecoder(reader: reader))
        } catch {
            // The decoder reads only what protobuf-c already accepted, so it never throws.
            preconditionFailure("decoding \(Self.protoName) failed: \(error)")
        }
    }
}
