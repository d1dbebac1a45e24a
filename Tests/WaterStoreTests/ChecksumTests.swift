import Testing
import WaterStore

@Suite("Checksum")
struct ChecksumTests {
    @Test("computes the standard CRC-32 check value")
    func checkValue() {
        // The catalogue's check value for CRC-32/ISO-HDLC over "123456789".
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.crc32([]) == 0)
    }

    @Test("continues across pieces")
    func pieces() {
        let whole = Checksum.crc32(Array("123456789".utf8))
        let first = Checksum.crc32(Array("1234".utf8))
        let continued = Array("56789".utf8).withUnsafeBytes { Checksum.crc32($0, continuing: first) }
        #expect(continued == whole)
    }
}
