/// Turns a `Response` into the bytes of its status line and header section, adding the
/// headers every response carries. The one place where framing headers are decided.
public enum ResponseHeadSerializer {
    /// How the body goes on the wire.
    public enum BodyFraming: Equatable, Sendable {
        case none
        case contentLength(UInt64)
        /// Length unknown ahead: chunked for HTTP/1.1 clients (RFC 9112 §7.1).
        case chunked
        /// Length unknown and the client speaks HTTP/1.0: the end is the connection closing.
        case untilClose
    }

    /// Headers added to every response unless a handler set its own (defence in depth:
    /// nothing we send may be sniffed into script or framed by another site).
    static let securityHeaders: [(String, String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        // Responses that set no policy of their own (JSON, text, redirects, 304s) may run
        // nothing and be framed by nobody, should a browser ever render one as a document.
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ]

    public static func serialize(
        _ response: Response, version: HTTPVersion, keepAlive: Bool, date: String
    ) -> (head: [UInt8], framing: BodyFraming) {
        let framing = bodyFraming(of: response, version: version)
        // Bytes appended directly: this runs once per response and String concatenation
        // showed up in profiles of small-file benchmarks.
        var head: [UInt8] = []
        head.reserveCapacity(512)
        head.appendUTF8("HTTP/1.1 ")
        head.appendDecimal(UInt64(response.status.code))
        head.append(0x20)
        head.appendUTF8(response.status.reason)
        head.appendUTF8("\r\nDate: ")
        head.appendUTF8(date)
        head.appendUTF8("\r\nServer: filedrop\r\n")
        func field(_ name: String, _ value: String) {
            head.appendUTF8(name)
            head.appendUTF8(": ")
            head.appendUTF8(value)
            head.appendUTF8("\r\n")
        }
        for (name, value) in response.headers
        where !name.equalsIgnoringASCIICase("content-length") && !name.equalsIgnoringASCIICase("transfer-encoding")
            && !name.equalsIgnoringASCIICase("connection") {
            field(name, value)
        }
        for (name, value) in securityHeaders where !response.headers.contains(name) {
            field(name, value)
        }
        switch framing {
        case .contentLength(let length):
            head.appendUTF8("Content-Length: ")
            head.appendDecimal(length)
            head.appendUTF8("\r\n")
        case .chunked: field("Transfer-Encoding", "chunked")
        case .none, .untilClose: break
        }
        if !keepAlive || framing == .untilClose {
            field("Connection", "close")
        } else if version == .http1_0 {
            field("Connection", "keep-alive")
        }
        head.appendUTF8("\r\n")
        return (head, framing)
    }

    /// RFC 9110 §9.3.2: HEAD is answered with GET's response (the connection drops the body),
    /// so its framing headers are GET's.
    static func bodyFraming(of response: Response, version: HTTPVersion) -> BodyFraming {
        guard response.status.allowsContent else { return .none }
        if let length = response.body.knownLength { return .contentLength(length) }
        return version == .http1_1 ? .chunked : .untilClose
    }
}

extension [UInt8] {
    /// Appends the UTF-8 of `text`, copied in one piece when it is contiguous (native strings
    /// and literals are).
    public mutating func appendUTF8(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if copied == nil { append(contentsOf: text.utf8) }
    }

    /// Appends `value` in decimal without building a String.
    public mutating func appendDecimal(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(0x30 + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
