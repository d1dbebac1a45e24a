import CProtobufC

/// One scalar or submessage as it sits in a protobuf-c message struct, independent of the Swift
/// type it came from. The codec moves every field through this type, so the C memory layout
/// rules live in one place (``FieldValue/store(at:type:arena:)`` and ``FieldValue/load(from:type:)``).
package enum FieldValue {
    case signed(Int64)
    case unsigned(UInt64)
    case bool(Bool)
    case double(Double)
    case float(Float)
    case string(String)
    case bytes([UInt8])
    /// A protobuf-c message struct, or nil for an absent submessage.
    case message(UnsafeRawPointer?)

    /// How many bytes one value of `type` takes in a message struct or a repeated array.
    @usableFromInline static func size(of type: ProtobufCType) -> Int {
        switch type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_ENUM,
            PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_FLOAT:
            return 4
        case PROTOBUF_C_TYPE_BOOL:
            return MemoryLayout<protobuf_c_boolean>.size
        case PROTOBUF_C_TYPE_BYTES:
            return MemoryLayout<ProtobufCBinaryData>.size
        default:  // 64-bit scalars, string and message pointers
            return 8
        }
    }

    /// Writes the value into C memory laid out for `type`; strings and bytes are copied into
    /// `arena`, so they live exactly as long as the message being built.
    @usableFromInline func store(at address: UnsafeMutableRawPointer, type: ProtobufCType, arena: WireArena) {
        switch (type, self) {
        case (PROTOBUF_C_TYPE_INT32, .signed(let v)), (PROTOBUF_C_TYPE_SINT32, .signed(let v)),
            (PROTOBUF_C_TYPE_SFIXED32, .signed(let v)), (PROTOBUF_C_TYPE_ENUM, .signed(let v)):
            address.storeBytes(of: Int32(v), as: Int32.self)
        case (PROTOBUF_C_TYPE_INT64, .signed(let v)), (PROTOBUF_C_TYPE_SINT64, .signed(let v)),
            (PROTOBUF_C_TYPE_SFIXED64, .signed(let v)):
            address.storeBytes(of: v, as: Int64.self)
        case (PROTOBUF_C_TYPE_UINT32, .unsigned(let v)), (PROTOBUF_C_TYPE_FIXED32, .unsigned(let v)):
            address.storeBytes(of: UInt32(v), as: UInt32.self)
        case (PROTOBUF_C_TYPE_UINT64, .unsigned(let v)), (PROTOBUF_C_TYPE_FIXED64, .unsigned(let v)):
            address.storeBytes(of: v, as: UInt64.self)
        case (PROTOBUF_C_TYPE_BOOL, .bool(let v)):
            address.storeBytes(of: v ? 1 : 0, as: protobuf_c_boolean.self)
        case (PROTOBUF_C_TYPE_DOUBLE, .double(let v)):
            address.storeBytes(of: v, as: Double.self)
        case (PROTOBUF_C_TYPE_FLOAT, .float(let v)):
            address.storeBytes(of: v, as: Float.self)
        case (PROTOBUF_C_TYPE_STRING, .string(let v)):
            address.storeBytes(of: arena.copy(string: v), as: UnsafeMutablePointer<CChar>.self)
        case (PROTOBUF_C_TYPE_BYTES, .bytes(let v)):
            address.storeBytes(
                of: ProtobufCBinaryData(len: v.count, data: v.withUnsafeBytes { arena.copy(bytes: $0) }),
                as: ProtobufCBinaryData.self)
        case (PROTOBUF_C_TYPE_MESSAGE, .message(let v)):
            address.storeBytes(of: v, as: UnsafeRawPointer?.self)
        default:
            // Generated Swift types always match their descriptors; only a hand edit gets here.
            preconditionFailure("a \(self) cannot be stored in a field of protobuf-c type \(type.rawValue)")
        }
    }

    /// Reads the value of `type` at `address`; nil `address` reads the proto3 default.
    @usableFromInline static func load(from address: UnsafeRawPointer?, type: ProtobufCType) -> FieldValue {
        guard let address else { return defaultValue(of: type) }
        switch type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_ENUM:
            return .signed(Int64(address.loadUnaligned(as: Int32.self)))
        case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
            return .signed(address.loadUnaligned(as: Int64.self))
        case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32:
            return .unsigned(UInt64(address.loadUnaligned(as: UInt32.self)))
        case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
            return .unsigned(address.loadUnaligned(as: UInt64.self))
        case PROTOBUF_C_TYPE_BOOL:
            return .bool(address.loadUnaligned(as: protobuf_c_boolean.self) != 0)
        case PROTOBUF_C_TYPE_DOUBLE:
            return .double(address.loadUnaligned(as: Double.self))
        case PROTOBUF_C_TYPE_FLOAT:
            return .float(address.loadUnaligned(as: Float.self))
        case PROTOBUF_C_TYPE_STRING:
            guard let chars = address.loadUnaligned(as: UnsafePointer<CChar>?.self) else { return .string("") }
            // protobuf-c does not check UTF-8; String(cString:) repairs ill-formed text.
            return .string(String(cString: chars))
        case PROTOBUF_C_TYPE_BYTES:
            let data = address.loadUnaligned(as: ProtobufCBinaryData.self)
            guard let bytes = data.data, data.len > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: bytes, count: data.len)))
        case PROTOBUF_C_TYPE_MESSAGE:
            return .message(address.loadUnaligned(as: UnsafeRawPointer?.self))
        default:
            preconditionFailure("unsupported protobuf-c type \(type.rawValue)")
        }
    }

    private static func defaultValue(of type: ProtobufCType) -> FieldValue {
        switch type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_ENUM,
            PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
            return .signed(0)
        case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
            return .unsigned(0)
        case PROTOBUF_C_TYPE_BOOL: return .bool(false)
        case PROTOBUF_C_TYPE_DOUBLE: return .double(0)
        case PROTOBUF_C_TYPE_FLOAT: return .float(0)
        case PROTOBUF_C_TYPE_STRING: return .string("")
        case PROTOBUF_C_TYPE_BYTES: return .bytes([])
        default: return .message(nil)
        }
    }
}
