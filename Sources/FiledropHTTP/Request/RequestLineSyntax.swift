/// The request line, RFC 9112 §3: `request-line = method SP request-target SP HTTP-version`.
enum RequestLineSyntax {
    /// Parses `line` (without CRLF). `firstSpace`/`secondSpace` are the offsets of the first two
    /// spaces inside `line`, already found by the caller's scan.
    static func parse(
        _ line: UnsafeRawBufferPointer, firstSpace: Int?, secondSpace: Int?
    ) throws(HTTPError) -> (method: HTTPMethod, target: String, shape: RequestTargetShape?, version: HTTPVersion) {
        guard let firstSpace, let secondSpace else {
            throw .malformedRequestLine("expected \"method target version\"")
        }
        let method = try parseMethod(UnsafeRawBufferPointer(rebasing: line[0..<firstSpace]))
        let (target, shape) = try parseTarget(
            UnsafeRawBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace]), method: method
        )
        let version = try parseVersion(UnsafeRawBufferPointer(rebasing: line[(secondSpace + 1)...]))
        return (method, target, shape, version)
    }

    /// RFC 9110 §9.1: `method = token`, case-sensitive.
    private static func parseMethod(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> HTTPMethod {
        if let known = knownMethod(bytes) { return known }
        guard !bytes.isEmpty, bytes.allSatisfy(isTokenByte) else {
            throw .malformedRequestLine("the method is not a token")
        }
        return HTTPMethod(token: String(decoding: bytes, as: UTF8.self))
    }

    /// The methods `HTTPMethod` has cases for, recognized from their bytes without making a
    /// String first (every request has a method; nearly all are GET).
    private static func knownMethod(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod? {
        switch bytes.count {
        case 3:
            if bytes.elementsEqual(ascii("GET")) { return .get }
            if bytes.elementsEqual(ascii("PUT")) { return .put }
        case 4:
            if bytes.elementsEqual(ascii("HEAD")) { return .head }
            if bytes.elementsEqual(ascii("POST")) { return .post }
        case 5:
            if bytes.elementsEqual(ascii("PATCH")) { return .patch }
        case 6:
            if bytes.elementsEqual(ascii("DELETE")) { return .delete }
        case 7:
            if bytes.elementsEqual(ascii("OPTIONS")) { return .options }
        default:
            break
        }
        return nil
    }

    private static func ascii(_ text: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// RFC 9112 §3.2: origin-form (`/path?q`), absolute-form (`http://host/path`),
    /// authority-form (`host:port`, CONNECT only) and asterisk-form (`*`, OPTIONS only).
    /// Non-ASCII bytes are tolerated when they form valid UTF-8 (curl sends them raw);
    /// control bytes and anything that would not survive as a String are refused.
    /// An origin-form target's shape (`RequestTargetShape`) is found in the same pass.
    private static func parseTarget(_ bytes: UnsafeRawBufferPointer, method: HTTPMethod) throws(HTTPError) -> (
        String, RequestTargetShape?
    ) {
        guard let first = bytes.first else { throw .malformedRequestLine("empty request target") }
        var ascii = true
        var queryMark: Int?
        var dotSegment = false
        for index in bytes.indices {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F {
                throw .malformedRequestLine("control character in the request target")
            }
            // RFC 9112 §3.2: no form of request-target has a fragment (RFC 9110 §4.2.5: a
            // client strips it), and `#` is not allowed unescaped in a path or a query.
            if byte == UInt8(ascii: "#") {
                throw .malformedRequestLine("a fragment (#) in the request target")
            }
            if byte >= 0x80 { ascii = false }
            if queryMark == nil {
                if byte == UInt8(ascii: "?") {
                    queryMark = index
                } else if byte == UInt8(ascii: "."), !dotSegment {
                    // The path ends where the query starts.
                    let pathEnd = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "?") ? index + 1 : bytes.count
                    dotSegment = DotSegments.isSingleDotSegment(at: index, in: bytes, pathEnd: pathEnd)
                }
            }
        }
        let shape =
            first == UInt8(ascii: "/")
            ? RequestTargetShape(queryMark: queryMark ?? bytes.count, hasSingleDotSegment: dotSegment) : nil
        let target: String
        if ascii {
            target = String(decoding: bytes, as: UTF8.self)
        } else {
            guard let valid = String(validating: bytes, as: UTF8.self) else {
                throw .malformedRequestLine("the request target is not valid UTF-8")
            }
            target = valid
        }
        switch method {
        case .other("CONNECT"):
            return (target, shape)
        case _ where first == UInt8(ascii: "/"):
            return (target, shape)
        case _ where bytes.count == 1 && first == UInt8(ascii: "*"):
            guard method == .options else {
                throw .malformedRequestLine("\"*\" is only a target for OPTIONS")
            }
            return (target, shape)
        default:
            guard hasScheme(bytes) else {
                throw .malformedRequestLine("the target is neither a path nor an absolute URI")
            }
            return (target, shape)
        }
    }

    /// RFC 3986 §3.1: `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` followed by `:`.
    private static func hasScheme(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first, isAlpha(first) else { return false }
        for byte in bytes.dropFirst() {
            if byte == .colon { return true }
            let schemeByte =
                isAlpha(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if !schemeByte { return false }
        }
        return false
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// RFC 9112 §2.3: `HTTP-version = "HTTP" "/" DIGIT "." DIGIT`, case-sensitive (so
    /// `HTTP/1.10` is malformed). RFC 9110 §2.5: a higher minor version of a major version we
    /// implement is processed as the highest minor we conform to, so `HTTP/1.2`-`HTTP/1.9` are
    /// HTTP/1.1. Other major versions (`HTTP/0.9`, `HTTP/2.0`) get 505.
    private static func parseVersion(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> HTTPVersion {
        guard bytes.count == 8, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"),
            bytes[2] == UInt8(ascii: "T"), bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/"),
            let major = digit(bytes[5]), bytes[6] == UInt8(ascii: "."), let minor = digit(bytes[7])
        else { throw .malformedRequestLine("the version is not HTTP/x.y") }
        guard major == 1 else { throw .unsupportedVersion }
        return minor == 0 ? .http1_0 : .http1_1
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil
    }
}
