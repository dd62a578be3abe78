/// A parsed request line and header section (RFC 9112 §3, §5).
public struct RequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request-target exactly as sent (origin-form `/path?query` or absolute-form).
    public let target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The path part of the target, still percent-encoded, without `.` segments
    /// (`DotSegments`). Split once here, and read once, by `Route`: access and dispatch
    /// switch over the route, never the raw target, so they agree on what was asked for.
    public let path: Substring
    /// The query (after `?`), still percent-encoded, or nil.
    public let query: Substring?

    public init(method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders) {
        self.init(method: method, target: target, version: version, headers: headers, shape: nil)
    }

    /// With `shape`, what the request-line parser already found in the target's bytes (an
    /// origin-form target's query mark and `.` segments): the target is not scanned again.
    init(method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders, shape: RequestTargetShape?) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        if let shape {
            let (rawPath, query) = Self.split(target, at: shape.queryMark)
            path = shape.hasSingleDotSegment ? DotSegments.removingKnownSingleDots(from: rawPath) : rawPath
            self.query = query
        } else {
            let (rawPath, query) = Self.pathAndQuery(of: target)
            path = DotSegments.removingSingleDots(from: rawPath)
            self.query = query
        }
    }

    private static func pathAndQuery(of target: String) -> (path: Substring, query: Substring?) {
        if let mark = queryMark(inOriginForm: target) { return split(target, at: mark) }
        let pathAndQuery = originForm(of: target)
        guard let mark = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (pathAndQuery, nil) }
        return (pathAndQuery[..<mark], pathAndQuery[pathAndQuery.index(after: mark)...])
    }

    /// An origin-form target (what every client but a proxy sends) split at the offset of its
    /// `?`, or its length when it has none. Without a query the path is the whole target
    /// (slicing a String checks both bounds, which costs more than the rest of this).
    private static func split(_ target: String, at mark: Int) -> (path: Substring, query: Substring?) {
        let utf8 = target.utf8
        guard mark < utf8.count else { return (Substring(target), nil) }
        let index = utf8.index(utf8.startIndex, offsetBy: mark)
        return (target[..<index], target[utf8.index(after: index)...])
    }

    /// RFC 9112 §3.2.2: a server must accept absolute-form; reduce it to path + query.
    private static func originForm(of target: String) -> Substring {
        let whole = Substring(target)
        // Byte test first: origin-form is what every client but a proxy sends.
        guard whole.utf8.first != UInt8(ascii: "/"), let colon = whole.firstIndex(of: ":") else { return whole }
        let afterScheme = whole[whole.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else { return whole }
        let afterAuthority = afterScheme.dropFirst(2)
        guard let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let rest = afterAuthority[slash...]
        return rest.hasPrefix("?") ? Substring("/" + rest) : rest
    }

    /// RFC 9112 §9.3: HTTP/1.1 is persistent unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`.
    public var wantsKeepAlive: Bool {
        if headers.containsToken("close", in: .connection) { return false }
        if version == .http1_1 { return true }
        return headers.containsToken("keep-alive", in: .connection)
    }

    /// RFC 9110 §10.1.1: `Expect: 100-continue` (case-insensitive).
    public var expectsContinue: Bool {
        headers.containsToken("100-continue", in: .expect)
    }

    /// For an origin-form target (its first byte is "/"), the offset of its first "?", or its
    /// length when it has none; nil for other forms or a target without contiguous bytes.
    private static func queryMark(inOriginForm target: String) -> Int? {
        target.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            return bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        } ?? nil
    }
}

/// What the request-line parser learned of an origin-form target while checking its bytes:
/// the offset of its `?` (its length when it has none), and whether its path has a `.`
/// segment (`DotSegments`).
struct RequestTargetShape: Sendable, Equatable {
    let queryMark: Int
    let hasSingleDotSegment: Bool
}
