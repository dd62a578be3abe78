import Testing

@testable import FiledropIO

@Suite("CRC32")
struct CRC32Tests {
    static let sample = Array("The quick brown fox jumps over the lazy dog, 0123456789 times.".utf8)

    @Test("Known check values of CRC-32/ISO-HDLC")
    func knownValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32().value == 0)
    }

    @Test("Fed whole, one byte at a time, or split at any offset: the same value")
    func streaming() {
        let whole = CRC32.checksum(Self.sample)
        var byByte = CRC32()
        for byte in Self.sample {
            byByte.update(CollectionOfOne(byte))
        }
        #expect(byByte.value == whole)
        for split in 0...Self.sample.count {
            var crc = CRC32()
            crc.update(Self.sample[..<split])
            crc.update(Self.sample[split...])
            #expect(crc.value == whole, "split at \(split)")
        }
    }

    @Test("Buffers larger than zlib's 32-bit length are fed in pieces", arguments: [1, 7, 64])
    func pieces(largestPiece: Int) {
        var crc = CRC32()
        Self.sample.withUnsafeBytes { crc.update($0, largestPiece: largestPiece) }
        #expect(crc.value == CRC32.checksum(Self.sample))
    }
}
