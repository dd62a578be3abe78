import FiledropHTTP

/// The origin (`scheme://host[:port]`) a request was sent to, as the client named it: the
/// scheme it came over and its `Host`, or the authority of an absolute-form target (RFC 9112
/// §3.2.2). For URLs handed back to be followed as they are, such as tus's `Location`: RFC
/// 9110 §10.2.2 allows a relative one, but some tus clients (aiotus) cannot resolve it. An
/// IPv6 literal keeps its brackets (RFC 3986 §3.2.2); the port stays as written.
///
/// The host has passed `HostValidator` before this is built, so it names this server.
struct RequestOrigin: Sendable, Equatable {
    /// `http://192.168.1.5:8080`, `https://[fe80::1]:8443`: no path, no trailing slash.
    let text: String

    /// Nil when the request names no host (HTTP/1.0 without `Host`).
    init?(head: borrowing RequestHead, isSecure: Bool) {
        guard let authority = Self.authority(of: head), HostValidator.split(authority: authority) != nil else { return nil }
        text = (isSecure ? "https://" : "http://") + authority
    }

    /// The absolute URL of `path` on this origin.
    func url(path: LocationPath) -> String { text + path.description }

    /// `host[:port]` as the request names it: the absolute-form target's authority, else `Host`.
    static func authority(of head: RequestHead) -> Substring? {
        HostValidator.authority(ofAbsoluteTarget: head.target) ?? head.headers[.host].map { Substring($0.trimmingOWS()) }
    }
}
