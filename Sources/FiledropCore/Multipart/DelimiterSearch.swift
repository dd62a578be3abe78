/// Finds the multipart delimiter `CRLF "--" boundary` (RFC 2046 §5.1.1) in payload bytes.
///
/// Three facts keep it fast and linear whatever the input holds:
/// - A valid boundary contains no CR, so the delimiter's only CR is its first byte: every
///   occurrence starts at a CR, and a partial match can never contain a second CR.
/// - Vector filter: an occurrence at `s` has a CR at `s` and the delimiter's last byte at
///   `s + L - 1` (L the delimiter's length). Both are compared for 64 starts at once with
///   `SIMD64<UInt8>` (SSE2 `pcmpeqb` on x86-64, NEON `cmeq` on aarch64); the rest of the
///   delimiter is compared only where both hold, about once per 65,536 random bytes and
///   rarely in text (a line's CR LF passes only when the byte L - 1 later happens to match).
/// - Skip filter: no byte of the delimiter is 0x00 or above 0x7F (CR, LF, "-" and the
///   RFC 2046 §5.1.1 `bchars` are ASCII). Any occurrence starting in the window
///   `from ..< from + L - 7`, whole or cut off by the end of the input, covers the word
///   `from + L - 8 ..< from + L`: when that word holds a 0x00 or a byte above 0x7F, the whole
///   window is skipped after one 8-byte load (the Horspool idea, used only as a filter). In
///   random payload only about one word in 270 has no such byte, so it is crossed about
///   L - 7 bytes per step; ASCII text never skips and is left to the vector filter.
/// Each byte is then examined a bounded number of times: skips read disjoint words, the
/// vector filter loads each byte twice, the tail's CR scans never revisit bytes, and a
/// comparison from one CR stops before the next CR.
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

    /// How far a window may be skipped when its last word rules out the delimiter; 0 turns
    /// skipping off (a boundary shorter than 11 bytes, or one holding 0x00 or a non-ASCII
    /// byte, which `MediaType.isValidBoundary` rejects anyway).
    private let skipDistance: Int

    /// Starts checked per vector step.
    static let vectorWidth = 64

    /// Vector steps between two skip attempts: text never skips, so trying after every step
    /// would cost it a wasted load and branch per 64 bytes.
    private static let vectorStepsPerSkipAttempt = 4

    init(boundary: String) {
        delimiter = [0x0D, 0x0A, UInt8(ascii: "-"), UInt8(ascii: "-")] + Array(boundary.utf8)
        let skippable = delimiter.allSatisfy { (0x01...0x7F).contains($0) }
        skipDistance = skippable && delimiter.count >= 15 ? delimiter.count - 7 : 0
    }

    func firstMatch(in bytes: UnsafeRawBufferPointer) -> Match {
        delimiter.withUnsafeBufferPointer { firstMatch(in: bytes, delimiter: $0) }
    }

    @inline(__always)
    private func firstMatch(in bytes: UnsafeRawBufferPointer, delimiter: UnsafeBufferPointer<UInt8>) -> Match {
        guard let base = bytes.baseAddress else { return .none }
        let count = bytes.count
        let length = delimiter.count
        let lastOffset = length - 1
        let width = Self.vectorWidth
        let crs = SIMD64<UInt8>(repeating: 0x0D)
        let lasts = SIMD64<UInt8>(repeating: delimiter[lastOffset])
        var from = 0
        // Starts are searched in order, so the first candidate confirmed is the first match.
        search: while true {
            if skipDistance > 0, count >= length {
                let lastWindow = count &- length
                let wordOffset = length &- 8
                @inline(__always) func skips(window: Int) -> Bool {
                    Self.holdsNonDelimiterByte(
                        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: window &+ wordOffset, as: UInt64.self)))
                }
                // Two windows per test: one branch per 2 (L - 7) bytes of random payload.
                while from &+ skipDistance <= lastWindow, skips(window: from) && skips(window: from &+ skipDistance) {
                    from &+= skipDistance &* 2
                }
                while from <= lastWindow, skips(window: from) {
                    from &+= skipDistance
                }
            }
            for _ in 0..<Self.vectorStepsPerSkipAttempt {
                // Only starts whose whole delimiter fits; the tail below handles the rest.
                guard from &+ width &+ lastOffset <= count else { break search }
                let starts = base.loadUnaligned(fromByteOffset: from, as: SIMD64<UInt8>.self)
                let ends = base.loadUnaligned(fromByteOffset: from &+ lastOffset, as: SIMD64<UInt8>.self)
                // A mask lane is all ones or all zeros: as words, its lanes are bytes.
                let hits = unsafeBitCast((starts .== crs) .& (ends .== lasts), to: SIMD8<UInt64>.self)
                let halves = hits.lowHalf | hits.highHalf
                let quarters = halves.lowHalf | halves.highHalf
                if quarters[0] | quarters[1] != 0 {
                    for word in 0..<8 {
                        var candidates = UInt64(littleEndian: hits[word]) & 0x8080_8080_8080_8080
                        while candidates != 0 {
                            let candidate = from &+ word &* 8 &+ candidates.trailingZeroBitCount &>> 3
                            var matched = 1
                            while matched < lastOffset, bytes[candidate &+ matched] == delimiter[matched] { matched &+= 1 }
                            if matched == lastOffset { return .delimiter(at: candidate) }
                            candidates &= candidates &- 1
                        }
                    }
                }
                from &+= width
            }
        }
        // Fewer than `width + L - 1` bytes remain: find each CR and compare what is there.
        while from < count {
            guard let candidate = Self.indexOfCR(in: bytes, from: from) else { return .none }
            let available = min(count - candidate, length)
            var matched = 1
            while matched < available, bytes[candidate + matched] == delimiter[matched] { matched += 1 }
            if matched == length { return .delimiter(at: candidate) }
            if matched == available { return .partial(at: candidate) }
            from = candidate + 1
        }
        return .none
    }

    /// Whether one of the word's bytes is 0x00 or above 0x7F, so no delimiter byte. Exact:
    /// `word - 0x01…01` borrows only out of a zero byte, and sets the high bit of the lowest
    /// one; `| word` adds the high bits already set.
    @inline(__always)
    private static func holdsNonDelimiterByte(_ word: UInt64) -> Bool {
        ((word &- 0x0101_0101_0101_0101) | word) & 0x8080_8080_8080_8080 != 0
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
            let a = crMask(index)
            let b = crMask(index + 8)
            let c = crMask(index + 16)
            let d = crMask(index + 24)
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
