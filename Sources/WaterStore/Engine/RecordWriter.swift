import WaterCodec

/// Where archives append their records for the next group: each one length-prefixed, packed
/// with protobuf-c straight into the buffer through an arena kept from record to record.
struct RecordWriter {
    /// The records so far; the committer's leader swaps them out for each group.
    var bytes: [UInt8] = []
    private let arena = WireArena(initialBlockSize: 1024)

    /// Appends one record.
    mutating func append(_ record: WaterArchiveV1.JournalRecord) {
        let start = bytes.count
        bytes.appendBigEndian(UInt32(0))
        let length = WireCodec.pack(record, appendingTo: &bytes, arena: arena)
        arena.reset()
        bytes.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(length).bigEndian, toByteOffset: start, as: UInt32.self)
        }
    }
}
