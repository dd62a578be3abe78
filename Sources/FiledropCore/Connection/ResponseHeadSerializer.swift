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
    ]

    public static func serialize(
        _ response: Response, version: HTTPVersion, keepAlive: Bool, date: String
    ) -> (head: [UInt8], framing: BodyFraming) {
        let framing = bodyFraming(of: response, version: version)
        var text = "HTTP/1.1 \(response.status.code) \(response.status.reason)\r\n"
        text.reserveCapacity(256)
        text += "Date: \(date)\r\nServer: filedrop\r\n"
        for (name, value) in response.headers
        where !name.equalsIgnoringASCIICase("content-length") && !name.equalsIgnoringASCIICase("transfer-encoding")
            && !name.equalsIgnoringASCIICase("connection") {
            text += "\(name): \(value)\r\n"
        }
        for (name, value) in securityHeaders where !response.headers.contains(name) {
            text += "\(name): \(value)\r\n"
        }
        switch framing {
        case .contentLength(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .none, .untilClose: break
        }
        let closes = !keepAlive || framing == .untilClose
        if closes {
            text += "Connection: close\r\n"
        } else if version == .http1_0 {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        return (Array(text.utf8), framing)
    }

    /// RFC 9110 §9.3.2: HEAD is answered with GET's response (the connection drops the body),
    /// so its framing headers are GET's.
    static func bodyFraming(of response: Response, version: HTTPVersion) -> BodyFraming {
        guard response.status.allowsContent else { return .none }
        if let length = response.body.knownLength { return .contentLength(length) }
        return version == .http1_1 ? .chunked : .untilClose
    }
}
