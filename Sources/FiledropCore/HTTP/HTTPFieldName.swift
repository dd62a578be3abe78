/// A header field name prepared for lookup. Names compare case-insensitively
/// (RFC 9110 §5.1), and a download asks for a dozen of them per request, so each name is
/// reduced once to a `Key`; a lookup then compares three words per field instead of
/// two Strings. The well-known names below are prepared once per process.
public struct HTTPFieldName: Sendable, Equatable {
    /// The name as written here (lowercase for the well-known names).
    public let text: String
    let key: Key

    public init(_ text: String) {
        self.text = text
        self.key = Key(text)
    }

    public static func == (lhs: HTTPFieldName, rhs: HTTPFieldName) -> Bool {
        lhs.key == rhs.key && (lhs.key.isExact || lhs.text.equalsIgnoringASCIICase(rhs.text))
    }

    /// The length and the first and last eight bytes of a name, lowercased. Names of up to
    /// 16 bytes are wholly in it, so equal keys mean equal names; longer names with equal
    /// keys still need a full comparison (`isExact` is false for them).
    struct Key: Equatable {
        let length: Int
        let head: UInt64
        let tail: UInt64

        var isExact: Bool { length <= 16 }

        init(_ name: String) {
            if let key = name.utf8.withContiguousStorageIfAvailable({ Key(UnsafeRawBufferPointer($0)) }) {
                self = key
            } else {
                self = Array(name.utf8).withUnsafeBytes { Key($0) }
            }
        }

        init(_ bytes: UnsafeRawBufferPointer) {
            length = bytes.count
            if bytes.count >= 8 {
                head = Self.lowercased(bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                tail = Self.lowercased(bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
            } else {
                var word: UInt64 = 0
                for index in 0..<bytes.count {
                    word |= UInt64(bytes[index]) << (8 * UInt64(index))
                }
                head = Self.lowercased(word)
                tail = head
            }
        }

        private static let ones: UInt64 = 0x0101_0101_0101_0101
        private static let highBits: UInt64 = 0x8080_8080_8080_8080

        /// `lowerASCII` applied to each byte of `word` at once: a byte is an upper-case
        /// letter when its low seven bits are at least "A" and below "[" and its high bit is
        /// clear; setting bit 0x20 of exactly those bytes lowers them. Each per-byte sum stays
        /// below 0x100, so no carry crosses into the next byte.
        static func lowercased(_ word: UInt64) -> UInt64 {
            let low7 = word & ~highBits
            let atLeastA = (low7 &+ (0x80 - 0x41) &* ones) & highBits
            let atLeastBracket = (low7 &+ (0x80 - 0x5B) &* ones) & highBits
            let upper = atLeastA & ~atLeastBracket & ~word
            return word | (upper >> 2)
        }
    }
}

extension HTTPFieldName {
    // Request fields the connection, the access checks and the routes read.
    public static let host = HTTPFieldName("host")
    public static let connection = HTTPFieldName("connection")
    public static let contentLength = HTTPFieldName("content-length")
    public static let transferEncoding = HTTPFieldName("transfer-encoding")
    public static let expect = HTTPFieldName("expect")
    public static let accept = HTTPFieldName("accept")
    public static let acceptEncoding = HTTPFieldName("accept-encoding")
    public static let authorization = HTTPFieldName("authorization")
    public static let origin = HTTPFieldName("origin")
    public static let secFetchSite = HTTPFieldName("sec-fetch-site")
    public static let range = HTTPFieldName("range")
    public static let ifRange = HTTPFieldName("if-range")
    public static let ifMatch = HTTPFieldName("if-match")
    public static let ifNoneMatch = HTTPFieldName("if-none-match")
    public static let ifModifiedSince = HTTPFieldName("if-modified-since")
    public static let ifUnmodifiedSince = HTTPFieldName("if-unmodified-since")
    public static let contentType = HTTPFieldName("content-type")
    // Response fields the serializer decides itself or adds by default.
    public static let contentEncoding = HTTPFieldName("content-encoding")
    public static let vary = HTTPFieldName("vary")
    public static let xContentTypeOptions = HTTPFieldName("x-content-type-options")
    public static let referrerPolicy = HTTPFieldName("referrer-policy")
    public static let xFrameOptions = HTTPFieldName("x-frame-options")
    public static let contentSecurityPolicy = HTTPFieldName("content-security-policy")
}
