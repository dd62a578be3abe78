/// A header field name prepared for lookup. Names compare case-insensitively
/// (RFC 9110 §5.1), and a download asks for a dozen of them per request, so each name is
/// reduced once to a `Key`; a lookup then compares three words per field instead of
/// two Strings. The well-known names below are prepared once per process.
///
/// A string literal is a name too (`["Content-Type": "text/plain"]`), for tests and names
/// used once; code that sets or reads a field names it by value: `headers.add(.location, url)`.
public struct HTTPFieldName: Sendable, Equatable, ExpressibleByStringLiteral {
    /// The name as written here: the well-known names in the case they are usually sent,
    /// so comparing with a field built in code usually settles on plain equality.
    public let text: String
    let key: Key

    public init(_ text: String) {
        self.text = text
        self.key = Key(text)
    }

    public init(stringLiteral text: String) {
        self.init(text)
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
            self = name.withUTF8Bytes { Key($0) }
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
    public static let host = HTTPFieldName("Host")
    public static let connection = HTTPFieldName("Connection")
    public static let contentLength = HTTPFieldName("Content-Length")
    public static let transferEncoding = HTTPFieldName("Transfer-Encoding")
    public static let expect = HTTPFieldName("Expect")
    public static let accept = HTTPFieldName("Accept")
    public static let acceptEncoding = HTTPFieldName("Accept-Encoding")
    public static let acceptLanguage = HTTPFieldName("Accept-Language")
    public static let cookie = HTTPFieldName("Cookie")
    public static let authorization = HTTPFieldName("Authorization")
    public static let origin = HTTPFieldName("Origin")
    public static let secFetchSite = HTTPFieldName("Sec-Fetch-Site")
    public static let range = HTTPFieldName("Range")
    public static let ifRange = HTTPFieldName("If-Range")
    public static let ifMatch = HTTPFieldName("If-Match")
    public static let ifNoneMatch = HTTPFieldName("If-None-Match")
    public static let ifModifiedSince = HTTPFieldName("If-Modified-Since")
    public static let ifUnmodifiedSince = HTTPFieldName("If-Unmodified-Since")
    public static let contentType = HTTPFieldName("Content-Type")
    // Response fields the handlers set (with `HTTPHeaders.add(_:_:)`).
    public static let etag = HTTPFieldName("ETag")
    public static let lastModified = HTTPFieldName("Last-Modified")
    public static let cacheControl = HTTPFieldName("Cache-Control")
    public static let contentDisposition = HTTPFieldName("Content-Disposition")
    public static let contentRange = HTTPFieldName("Content-Range")
    public static let acceptRanges = HTTPFieldName("Accept-Ranges")
    public static let location = HTTPFieldName("Location")
    public static let allow = HTTPFieldName("Allow")
    public static let wwwAuthenticate = HTTPFieldName("WWW-Authenticate")
    public static let retryAfter = HTTPFieldName("Retry-After")
    /// RFC 4918 §10.3, §10.6: where a MOVE goes, and whether it may replace what is there.
    public static let destination = HTTPFieldName("Destination")
    public static let overwrite = HTTPFieldName("Overwrite")
    // RFC 9530 (and RFC 3230's obsolete Digest): the SHA-256 of an upload, sent and answered.
    public static let reprDigest = HTTPFieldName("Repr-Digest")
    public static let digest = HTTPFieldName("Digest")
    // Response fields the serializer decides itself or adds by default.
    public static let contentEncoding = HTTPFieldName("Content-Encoding")
    public static let vary = HTTPFieldName("Vary")
    public static let setCookie = HTTPFieldName("Set-Cookie")
    public static let xContentTypeOptions = HTTPFieldName("X-Content-Type-Options")
    public static let referrerPolicy = HTTPFieldName("Referrer-Policy")
    public static let xFrameOptions = HTTPFieldName("X-Frame-Options")
    public static let contentSecurityPolicy = HTTPFieldName("Content-Security-Policy")
}
