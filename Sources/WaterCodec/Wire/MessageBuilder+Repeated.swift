import CProtobufC

// Repeated fields, stored as protobuf-c lays them out: a `size_t n_<field>` count and a pointer
// to an array of the field's C type, the array in the arena. Each element goes straight from the
// Swift array into the C array, with no array of FieldValues in between.
extension MessageBuilder {
    /// Allocates the array of the repeated field at `index` for `count` elements, stores its
    /// count and address, and returns it (nil for none: protobuf-c's empty repeated field).
    @usableFromInline func repeatedArray(count: Int, at index: Int) -> (
        field: UnsafePointer<ProtobufCFieldDescriptor>, array: UnsafeMutableRawPointer?
    ) {
        let field = field(at: index)
        precondition(field.pointee.label == PROTOBUF_C_LABEL_REPEATED, "field \(index) is singular")
        let array = count == 0 ? nil : arena.allocate(byteCount: count * FieldValue.size(of: field.pointee.type))
        (storage + Int(field.pointee.quantifier_offset)).storeBytes(of: count, as: Int.self)
        (storage + Int(field.pointee.offset)).storeBytes(
            of: array.map(UnsafeRawPointer.init), as: UnsafeRawPointer?.self)
        return (field, array)
    }

    /// Stores a repeated field of numbers in one copy: `Element` has the layout of the field's
    /// C type (the generator only calls it so).
    @inlinable package func setNumbers<Element: FixedWidthInteger>(_ elements: [Element], at index: Int) {
        elements.withUnsafeBytes { storeNumbers($0, stride: MemoryLayout<Element>.stride, at: index) }
    }

    package func setNumbers(_ elements: [Double], at index: Int) {
        elements.withUnsafeBytes { storeNumbers($0, stride: MemoryLayout<Double>.stride, at: index) }
    }

    package func setNumbers(_ elements: [Float], at index: Int) {
        elements.withUnsafeBytes { storeNumbers($0, stride: MemoryLayout<Float>.stride, at: index) }
    }

    @usableFromInline func storeNumbers(_ bytes: UnsafeRawBufferPointer, stride: Int, at index: Int) {
        let (field, array) = repeatedArray(count: bytes.count / stride, at: index)
        precondition(FieldValue.size(of: field.pointee.type) == stride, "field layout")
        if let array, let base = bytes.baseAddress { array.copyMemory(from: base, byteCount: bytes.count) }
    }

    /// Stores a repeated field of strings, bytes, bools or enums, each element made into the
    /// field value `value` says (strings and bytes are copied into the arena).
    @inlinable package func setValues<Element>(_ elements: [Element], at index: Int, _ value: (Element) -> FieldValue) {
        let (field, array) = repeatedArray(count: elements.count, at: index)
        guard let array else { return }
        let size = FieldValue.size(of: field.pointee.type)
        for (offset, element) in elements.enumerated() {
            value(element).store(at: array + offset * size, type: field.pointee.type, arena: arena)
        }
    }

    /// Stores a repeated message field: an array of pointers to structs built in the arena.
    @inlinable package func setMessages<Message: WireMessage>(_ messages: [Message], at index: Int) {
        let (field, array) = repeatedArray(count: messages.count, at: index)
        guard let array else { return }
        for (offset, message) in messages.enumerated() {
            let child = child(of: field)
            message.encodeFields(into: child)
            array.storeBytes(of: UnsafeRawPointer(child.storage), toByteOffset: offset * 8, as: UnsafeRawPointer.self)
        }
    }
}
