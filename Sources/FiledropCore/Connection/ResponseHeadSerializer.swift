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
        let closes = !keepAlive || framing == .untilClose
        // Written into one buffer sized up front: this runs once per response, and String
        // concatenation (then array appends) showed up in profiles of small-file benchmarks.
        var capacity = 64 + response.status.reason.utf8.count + date.utf8.count
        for (name, value) in response.headers { capacity += name.utf8.count + value.utf8.count + 4 }
        for (name, value) in securityHeaders { capacity += name.utf8.count + value.utf8.count + 4 }
        capacity += 64  // Content-Length or Transfer-Encoding, and Connection
        let head = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var out = HeadWriter(buffer: buffer)
            out.write("HTTP/1.1 ")
            out.writeDecimal(UInt64(response.status.code))
            out.write(" ")
            out.write(response.status.reason)
            out.write("\r\nDate: ")
            out.write(date)
            out.write("\r\nServer: filedrop\r\n")
            for (name, value) in response.headers
            where !name.equalsIgnoringASCIICase("content-length") && !name.equalsIgnoringASCIICase("transfer-encoding")
                && !name.equalsIgnoringASCIICase("connection") {
                out.field(name, value)
            }
            for (name, value) in securityHeaders where !response.headers.contains(name) {
                out.field(name, value)
            }
            switch framing {
            case .contentLength(let length):
                out.write("Content-Length: ")
                out.writeDecimal(length)
                out.write("\r\n")
            case .chunked: out.field("Transfer-Encoding", "chunked")
            case .none, .untilClose: break
            }
            if closes {
                out.field("Connection", "close")
            } else if version == .http1_0 {
                out.field("Connection", "keep-alive")
            }
            out.write("\r\n")
            count = out.count
        }
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

/// Fills a buffer sized ahead by `ResponseHeadSerializer` (it traps rather than overrun it).
private struct HeadWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    mutating func write(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.isEmpty else { return }
            precondition(count + bytes.count <= buffer.count, "response head larger than sized")
            UnsafeMutableRawPointer(buffer.baseAddress! + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            count += bytes.count
        }
        if copied == nil {
            for byte in text.utf8 {
                buffer[count] = byte
                count += 1
            }
        }
    }

    mutating func field(_ name: String, _ value: String) {
        write(name)
        write(": ")
        write(value)
        write("\r\n")
    }

    mutating func writeDecimal(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer[count] = 0x30 + UInt8(rest / divisor)
            count += 1
            rest %= divisor
            divisor /= 10
        }
    }
}
