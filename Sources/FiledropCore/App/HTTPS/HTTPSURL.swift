import FiledropHTTP

/// This server's HTTPS address as the client names it: the host the request was sent to
/// (its `Host`, or the authority of an absolute-form target, RFC 9112 §3.2.2) without its
/// port, with the HTTPS port instead. An IPv6 literal keeps its brackets (RFC 3986 §3.2.2);
/// port 443 is left out, as browsers write it.
///
/// The host has passed `HostValidator` before this is built, so it names this server.
struct HTTPSURL: Sendable, Equatable {
    /// The host as the client wrote it, without the port: `192.168.1.5`, `[fe80::1]`, `name.local`.
    let host: String
    /// `https://host[:port]`, without a path.
    let origin: String

    /// Nil when the request names no host (HTTP/1.0 without `Host`).
    init?(head: borrowing RequestHead, port: UInt16) {
        guard let authority = RequestOrigin.authority(of: head), let (host, _) = HostValidator.split(authority: authority) else {
            return nil
        }
        self.host = String(host)
        origin = "https://" + host + (port == 443 ? "" : ":\(port)")
    }

    /// The server's front page over HTTPS.
    var root: String { origin + LocationPath.root.description }

    /// The same path and query as `head`'s, over HTTPS: where a plain-HTTP request belongs.
    /// The path is the server's own normalised copy (`LocationPath`), never the raw target.
    func sameResource(as head: RequestHead) -> String {
        // Only origin-form paths with components that decode are kept; anything else (`*`, a
        // malformed escape) has no HTTPS twin but the page.
        guard let path = LocationPath(requestPath: head.path) else { return root }
        return origin + path.description + (head.query.map { "?" + $0 } ?? "")
    }
}
