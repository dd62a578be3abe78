/// A parsed request line and header section (RFC 9112 §3, §5).
public struct RequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request-target exactly as sent (origin-form `/path?query` or absolute-form).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    public init(method: HTTPMethod, target: String, version: HTTPVersion, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The path part of the target, still percent-encoded.
    public var path: Substring {
        let pathAndQuery = originForm
        return pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? pathAndQuery
    }

    /// The query (after `?`), still percent-encoded, or nil.
    public var query: Substring? {
        guard let mark = originForm.firstIndex(of: "?") else { return nil }
        return originForm[originForm.index(after: mark)...]
    }

    /// RFC 9112 §3.2.2: a server must accept absolute-form; reduce it to path + query.
    private var originForm: Substring {
        let whole = Substring(target)
        guard !whole.hasPrefix("/"), let colon = whole.firstIndex(of: ":") else { return whole }
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
        let connection = headers.tokens(for: "connection")
        if connection.contains("close") { return false }
        if version == .http1_1 { return true }
        return connection.contains("keep-alive")
    }

    /// RFC 9110 §10.1.1: `Expect: 100-continue` (case-insensitive).
    public var expectsContinue: Bool {
        headers.tokens(for: "expect").contains("100-continue")
    }
}
