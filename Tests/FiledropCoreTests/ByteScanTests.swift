import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The word-at-a-time scans must agree with a plain byte loop wherever the interesting byte
/// sits relative to the 8-byte words and the bounds.
@Suite struct ByteScanTests {
    static let interesting: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x0E, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xFF]

    @Test(arguments: interesting)
    func firstIndexBelowMatchesAByteLoop(special: UInt8) {
        for length in 0...24 {
            for position in 0...length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                if position < length { bytes[position] = special }
                for start in 0...min(3, length) {
                    let found = bytes.withUnsafeBytes { ByteScan.firstIndex(below: 0x0E, in: $0, from: start, to: length) }
                    let expected = (start..<length).first { bytes[$0] < 0x0E } ?? length
                    #expect(found == expected, "length \(length) special at \(position) from \(start)")
                }
            }
        }
    }

    @Test(arguments: interesting)
    func firstInvalidFieldValueByteMatchesAByteLoop(special: UInt8) {
        for length in 0...24 {
            for position in 0...length {
                var bytes = [UInt8](repeating: UInt8(ascii: "v"), count: length)
                if position < length { bytes[position] = special }
                for start in 0...min(3, length) {
                    let found = bytes.withUnsafeBytes { ByteScan.firstInvalidFieldValueByte(in: $0, from: start, to: length) }
                    let expected = (start..<length).first { !isFieldValueByte(bytes[$0]) } ?? length
                    #expect(found == expected, "length \(length) special at \(position) from \(start)")
                }
            }
        }
    }
}
