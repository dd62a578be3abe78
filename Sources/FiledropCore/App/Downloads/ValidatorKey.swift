/// The secret key of the entity tags this process makes (`FileResponse.etag(for:)`,
/// listing validators): SipHash-2-4 of a file's inode, size and mtime under it hides the
/// inode number (and anything else in the metadata) from clients, while still changing
/// whenever the bytes can have changed.
///
/// The key is drawn at start and kept in memory only, so ETags change when the daemon
/// restarts. Chosen over a key kept in the save directory: that would be a file to create in
/// a folder that may be read-only or shared by two daemons, and to keep out of listings, ZIP
/// archives and uploads; a restart is rare, and costs each cached client one full 200 instead
/// of a 304 (and a resumed download sent with If-Range from the start again) - never a wrong body.
struct ValidatorKey: Sendable {
    let k0: UInt64
    let k1: UInt64

    /// The key of this process.
    static let process: ValidatorKey = {
        var generator = SystemRandomNumberGenerator()
        return ValidatorKey(k0: generator.next(), k1: generator.next())
    }()

    /// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012) of
    /// `words`, each taken as eight little-endian bytes.
    func hash(_ words: [UInt64]) -> UInt64 {
        var hasher = Hasher(key: self)
        for word in words { hasher.add(word) }
        return hasher.finish()
    }

    /// `hash` fed word by word, so a listing of 100,000 entries is hashed without first
    /// collecting its words in an array.
    struct Hasher {
        private var v0: UInt64
        private var v1: UInt64
        private var v2: UInt64
        private var v3: UInt64
        private var count = 0

        init(key: ValidatorKey) {
            v0 = key.k0 ^ 0x736f_6d65_7073_6575
            v1 = key.k1 ^ 0x646f_7261_6e64_6f6d
            v2 = key.k0 ^ 0x6c79_6765_6e65_7261
            v3 = key.k1 ^ 0x7465_6462_7974_6573
        }

        @inline(__always)
        private mutating func round() {
            v0 = v0 &+ v1
            v1 = rotate(v1, 13)
            v1 ^= v0
            v0 = rotate(v0, 32)
            v2 = v2 &+ v3
            v3 = rotate(v3, 16)
            v3 ^= v2
            v0 = v0 &+ v3
            v3 = rotate(v3, 21)
            v3 ^= v0
            v2 = v2 &+ v1
            v1 = rotate(v1, 17)
            v1 ^= v2
            v2 = rotate(v2, 32)
        }

        private mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }

        mutating func add(_ word: UInt64) {
            compress(word)
            count += 1
        }

        /// A string's UTF-8 bytes, eight to a word (little-endian, the last word zero-padded),
        /// then its length: names in listings. Whole words are loaded as such, not a byte at a time.
        mutating func add(_ text: String) {
            text.withUTF8Bytes { bytes in
                var start = 0
                while start + 8 <= bytes.count {
                    add(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)))
                    start += 8
                }
                if start < bytes.count {
                    var word: UInt64 = 0
                    for index in start..<bytes.count { word |= UInt64(bytes[index]) &<< UInt64(8 * (index - start)) }
                    add(word)
                }
                add(UInt64(bytes.count))
            }
        }

        mutating func finish() -> UInt64 {
            // The final block: no tail bytes, only the message length in its top byte.
            compress(UInt64(truncatingIfNeeded: count * 8) << 56)
            v2 ^= 0xff
            round()
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }
    }

    /// 16 lowercase hex digits, leading zeros kept.
    static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<16).map { digits[Int((value >> UInt64(60 - 4 * $0)) & 0xF)] }, as: UTF8.self)
    }
}

/// Inlined, with masking shifts (`<<` checks for counts of 64 and more), this is one
/// instruction; called as a function it was 5% of a 100,000-entry listing's instructions.
@inline(__always)
private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value &<< count) | (value &>> (64 &- count))
}
