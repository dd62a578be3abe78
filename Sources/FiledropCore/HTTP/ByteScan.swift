/// Word-at-a-time byte searches for the head parser's hot loops: eight bytes per step while
/// nothing interesting is in them, then byte by byte. ("Determine if a word has a byte less
/// than n", Sean Eron Anderson's Bit Twiddling Hacks; exact for n <= 128.)
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte in `start..<end` below `limit` (at most 128), or `end`.
    @inline(__always)
    static func firstIndex(below limit: UInt8, in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end, !hasByte(below: limit, buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
            index += 8
        }
        while index < end, buffer[index] >= limit { index += 1 }
        return index
    }

    /// The index of the first byte in `start..<end` that may not appear in a field value
    /// (RFC 9110 §5.5: a control byte other than HTAB, or DEL), or `end`.
    @inline(__always)
    static func firstInvalidFieldValueByte(in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index < end {
            if index + 8 <= end {
                let word = buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if !hasByte(below: 0x20, word), !hasByte(below: 1, word ^ (0x7F &* ones)) {
                    index += 8
                    continue
                }
            }
            let last = min(index + 8, end)
            while index < last {
                if !isFieldValueByte(buffer[index]) { return index }
                index += 1
            }
        }
        return end
    }

    @inline(__always)
    private static func hasByte(below limit: UInt8, _ word: UInt64) -> Bool {
        (word &- UInt64(limit) &* ones) & ~word & highBits != 0
    }
}
