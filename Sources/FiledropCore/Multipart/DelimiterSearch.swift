/// Finds the multipart delimiter `CRLF "--" boundary` (RFC 2046 §5.1.1) in payload bytes.
///
/// Two facts keep it fast and linear whatever the input holds:
/// - A valid boundary contains no CR, so the delimiter's only CR is its first byte: every
///   occurrence starts at a CR, and a partial match can never contain a second CR. Candidates
///   are found by scanning for CR eight bytes at a time (a word-at-a-time "has zero byte"
///   test, like memchr) and the rest of the delimiter is compared only there.
/// - Any occurrence starting in the window `from ..< from + L` (L the delimiter's length),
///   whole or cut off by the end of the input, covers the window's last byte. When that byte
///   appears nowhere in the delimiter, the whole window is skipped after looking at one byte
///   (the Horspool idea, used only as a filter): random payload, whose bytes mostly fall
///   outside the delimiter's 20 or so distinct ones, is crossed about L bytes per step.
/// Each byte is then examined a bounded number of times: skips look at one byte per window,
/// CR scans never revisit bytes, and a comparison from one CR stops before the next CR.
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

    /// The bytes that occur in `delimiter`.
    private let delimiterBytes: ByteSet

    init(boundary: String) {
        delimiter = [0x0D, 0x0A, UInt8(ascii: "-"), UInt8(ascii: "-")] + Array(boundary.utf8)
        delimiterBytes = ByteSet(delimiter)
    }

    func firstMatch(in bytes: UnsafeRawBufferPointer) -> Match {
        delimiterBytes.withLookup { isDelimiterByte in firstMatch(in: bytes, isDelimiterByte: isDelimiterByte) }
    }

    @inline(__always)
    private func firstMatch(in bytes: UnsafeRawBufferPointer, isDelimiterByte: (UInt8) -> Bool) -> Match {
        let length = delimiter.count
        var from = 0
        while from < bytes.count {
            while from + length <= bytes.count, !isDelimiterByte(bytes[from + length - 1]) {
                from += length
            }
            // Candidates starting in this window; a comparison may read past its end.
            let windowEnd = min(from + length, bytes.count)
            guard let candidate = Self.indexOfCR(in: UnsafeRawBufferPointer(rebasing: bytes[..<windowEnd]), from: from) else {
                from = windowEnd
                continue
            }
            let available = min(bytes.count - candidate, length)
            var matched = 1
            while matched < available, bytes[candidate + matched] == delimiter[matched] { matched += 1 }
            if matched == length { return .delimiter(at: candidate) }
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

/// A set of byte values as a 256-entry table: membership is one load, with no branch on the
/// byte (a switch over four words mispredicted on random payload, and a vector of words was
/// spilled to the stack on every lookup).
struct ByteSet: Sendable {
    private var members = [Bool](repeating: false, count: 256)

    init(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { members[Int(byte)] = true }
    }

    /// Runs `body` with a lookup that is only valid inside it (no array access per byte).
    @inline(__always)
    func withLookup<R>(_ body: ((UInt8) -> Bool) -> R) -> R {
        members.withUnsafeBufferPointer { table in body { table[Int($0)] } }
    }
}
