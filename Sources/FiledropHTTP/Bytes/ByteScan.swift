/// Word-at-a-time byte searches for the head parser's hot loops: eight bytes per step while
/// nothing interesting is in them, then byte by byte. ("Determine if a word has a byte less
/// than n", Sean Eron Anderson's Bit Twiddling Hacks; exact for n <= 128.)
public enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte in `start..<end` below `limit` (at most 128), or `end`.
    @inline(__always)
    public static func firstIndex(below limit: UInt8, in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
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
    public static func firstInvalidFieldValueByte(in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
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

    /// The index of the first `byte` in `start..<end`, or `end`: where a list element or a
    /// parameter ends.
    @inline(__always)
    public static func firstIndex(of byte: UInt8, in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int {
        var index = start
        while index < end && buffer[index] != byte { index += 1 }
        return index
    }

    /// `start..<end` without optional white space (SP, HTAB) at either end (RFC 9110 §5.6.3).
    @inline(__always)
    public static func trimmingOWS(in buffer: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Range<Int> {
        var first = start
        var last = end
        while first < last && (buffer[first] == .space || buffer[first] == .tab) { first += 1 }
        while last > first && (buffer[last - 1] == .space || buffer[last - 1] == .tab) { last -= 1 }
        return first..<last
    }

    @inline(__always)
    fileprivate static func hasByte(below limit: UInt8, _ word: UInt64) -> Bool {
        (word &- UInt64(limit) &* ones) & ~word & highBits != 0
    }
}

/// Substring search on bytes, for fields read on every request (`Accept`).
enum ByteSearch {
    /// Whether `needle` (lowercase ASCII) occurs in `haystack`, ignoring ASCII case. The scan
    /// looks for one byte of the needle, its anchor: the first of its subtype for a media
    /// type (`j` of `application/json`: a browser's Accept has an `a` every few bytes), and
    /// skips eight bytes at a time while none is that byte in either case (Bit Twiddling
    /// Hacks' "has a zero byte", on the word XOR the anchor).
    public static func contains(_ haystack: UnsafeRawBufferPointer, caseInsensitive needle: StaticString) -> Bool {
        let pattern = UnsafeRawBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard !pattern.isEmpty else { return true }
        guard haystack.count >= pattern.count else { return false }
        let slash = pattern.firstIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let anchor = slash < pattern.count ? slash : 0
        let lower = pattern[anchor]
        let upper = lower >= 0x61 && lower <= 0x7A ? lower - 0x20 : lower
        let lowerWord = UInt64(lower) &* 0x0101_0101_0101_0101
        let upperWord = UInt64(upper) &* 0x0101_0101_0101_0101
        // `i` is where the anchor would be; the match starts `anchor` bytes before it.
        let end = haystack.count - pattern.count + anchor
        var i = anchor
        while i <= end {
            if i + 8 <= haystack.count {
                let word = haystack.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !ByteScan.hasByte(below: 1, word ^ lowerWord) && !ByteScan.hasByte(below: 1, word ^ upperWord) {
                    i += 8
                    continue
                }
            }
            if lowerASCII(haystack[i]) == lower {
                let start = i - anchor
                var j = 0
                while j < pattern.count && lowerASCII(haystack[start + j]) == pattern[j] { j += 1 }
                if j == pattern.count { return true }
            }
            i += 1
        }
        return false
    }
}
