/// Finds the multipart delimiter `CRLF "--" boundary` (RFC 2046 §5.1.1) in payload bytes.
///
/// A valid boundary contains no CR, so the delimiter's only CR is its first byte: every
/// occurrence starts at a CR, and a partial match can never contain a second CR. The search
/// therefore scans for CR eight bytes at a time (a word-at-a-time "has zero byte" test, like
/// memchr) and compares the rest of the delimiter only there; total work stays linear in the
/// input whatever it contains.
struct DelimiterSearch: Sendable {
    enum Match: Equatable {
        /// The whole delimiter starts at this index.
        case delimiter(at: Int)
        /// The bytes from this index to the end are a proper prefix of the delimiter.
        case partial(at: Int)
        /// No delimiter and no prefix of one at the end: every byte is payload.
        case none
    }

    /// `CR LF "--" boundary`.
    let delimiter: [UInt8]

    init(boundary: String) {
        delimiter = [0x0D, 0x0A, UInt8(ascii: "-"), UInt8(ascii: "-")] + Array(boundary.utf8)
    }

    func firstMatch(in bytes: UnsafeRawBufferPointer) -> Match {
        var from = 0
        while let candidate = Self.indexOfCR(in: bytes, from: from) {
            let available = min(bytes.count - candidate, delimiter.count)
            var matched = 1
            while matched < available, bytes[candidate + matched] == delimiter[matched] { matched += 1 }
            if matched == delimiter.count { return .delimiter(at: candidate) }
            if matched == available { return .partial(at: candidate) }
            from = candidate + 1
        }
        return .none
    }

    /// How `held` (a proper prefix of the delimiter) continues in `bytes`.
    enum Continuation: Equatable {
        /// The delimiter completes after this many bytes of `bytes`.
        case completes(after: Int)
        /// Every byte of `bytes` continues the prefix; still not the whole delimiter.
        case stillPartial
        /// The held bytes were payload after all.
        case broken
    }

    func continuation(ofPrefix heldCount: Int, in bytes: UnsafeRawBufferPointer) -> Continuation {
        let needed = delimiter.count - heldCount
        let available = min(needed, bytes.count)
        for offset in 0..<available where bytes[offset] != delimiter[heldCount + offset] {
            return .broken
        }
        return available == needed ? .completes(after: needed) : .stillPartial
    }

    /// The index of the first CR (0x0D) at or after `start`.
    @inline(__always)
    static func indexOfCR(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let pattern: UInt64 = 0x0D0D_0D0D_0D0D_0D0D
        // A byte of `word ^ pattern` is zero where the input has a CR; `(x - ones) & ~x & highBits`
        // sets the high bit of the lowest such byte exactly (false hits only sit above a real one).
        @inline(__always) func crMask(_ offset: Int) -> UInt64 {
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) ^ pattern
            return (x &- ones) & ~x & highBits
        }
        var index = start
        let count = bytes.count
        while index + 32 <= count {
            let a = crMask(index), b = crMask(index + 8), c = crMask(index + 16), d = crMask(index + 24)
            if (a | b | c | d) != 0 {
                if a != 0 { return index + a.trailingZeroBitCount >> 3 }
                if b != 0 { return index + 8 + b.trailingZeroBitCount >> 3 }
                if c != 0 { return index + 16 + c.trailingZeroBitCount >> 3 }
                return index + 24 + d.trailingZeroBitCount >> 3
            }
            index += 32
        }
        while index + 8 <= count {
            let mask = crMask(index)
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count {
            if bytes[index] == 0x0D { return index }
            index += 1
        }
        return nil
    }
}
