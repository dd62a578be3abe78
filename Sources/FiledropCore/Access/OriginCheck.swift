import FiledropHTTP

/// Refuses state-changing requests that a browser sends on behalf of another website
/// (cross-site request forgery): a page elsewhere can make the browser POST a form or a
/// `no-cors` fetch to the daemon without reading the answer, and that alone would store,
/// overwrite or delete files. Browsers say where a request comes from in `Sec-Fetch-Site`
/// (W3C Fetch Metadata) and `Origin` (RFC 6454 §7, Fetch); our own page is same-origin,
/// and clients that are not browsers (curl, scripts, URLSession) send neither.
///
/// `same-site` is refused too: for an IP address the site is the address itself, so a page
/// served from another port of the same machine, or a sibling name under the same domain, is
/// same-site and no more trustworthy than any other website.
public enum OriginCheck {
    /// How each refusal's sentence begins, so the metrics can tell it from other 403s.
    static let refusalOpening = "This request was sent by another website"

    /// Throws 403 when the request changes state and a browser says it comes from elsewhere.
    /// `scheme`: the one an `Origin` must name (`https` on the HTTPS port, `http` on the plain
    /// port beside it: RFC 6454 §4, an origin is scheme, host and port, and a page served over
    /// the other is another origin); nil when either will do, without TLS of our own, where a
    /// TLS-terminating proxy in front makes the browser's origin `https`.
    public static func check(_ head: RequestHead, scheme: String? = nil) throws(HTTPError) {
        // RFC 9110 §9.2.1: GET, HEAD, OPTIONS and TRACE are safe; everything else may change state.
        switch head.method {
        case .get, .head, .options: return
        default: break
        }
        let site = head.headers[.secFetchSite]?.trimmingOWS().lowercased()
        if let site, site != "same-origin", site != "none" {
            throw .forbidden(
                refusalOpening + " (Sec-Fetch-Site: \(String(site.prefix(40)).logEscaped)). "
                    + "filedrop accepts uploads and deletions only from its own page or from programs such as curl.")
        }
        // Fetch §3.1 (serializing a request origin): under `Referrer-Policy: no-referrer`, which
        // we send, a browser's form POST says `Origin: null` even on our own page; then only
        // the browser's own `Sec-Fetch-Site` vouches for it: `same-origin`, or `none` for a POST
        // the browser starts itself with no page behind it (an installed app's share target:
        // "Share -> filedrop"), which no website can cause.
        if let origin = head.headers[.origin]?.trimmingOWS(), !(origin == "null" && (site == "same-origin" || site == "none")) {
            guard matches(origin: origin, host: head.headers[.host], scheme: scheme) else {
                throw .forbidden(
                    refusalOpening + " (Origin: \(String(origin.prefix(100)).logEscaped)). "
                        + "filedrop accepts uploads and deletions only from its own page or from programs such as curl.")
            }
        }
    }

    /// Whether `Origin` (`scheme://host[:port]`, RFC 6454 §6.2) names the same host and port
    /// as `Host`. A Host without a port means the default port of the scheme the client used,
    /// so `https://name` matches `Host: name` behind a TLS-terminating proxy. `null` (opaque
    /// origins: sandboxed frames, `file:` pages) never matches, nor does another scheme than
    /// `scheme` when one is given.
    static func matches(origin: String, host: String?, scheme required: String? = nil) -> Bool {
        guard let host = host?.trimmingOWS(), let schemeEnd = origin.firstRange(of: "://") else { return false }
        let scheme = origin[..<schemeEnd.lowerBound].lowercased()
        if let required, scheme != required { return false }
        let defaultPort: Substring
        switch scheme {
        case "http": defaultPort = "80"
        case "https": defaultPort = "443"
        default: return false
        }
        let originAuthority = origin[schemeEnd.upperBound...]
        guard !originAuthority.contains("/"), !originAuthority.contains("@"),
            let (originHost, originPort) = HostValidator.split(authority: originAuthority),
            let (requestHost, requestPort) = HostValidator.split(authority: Substring(host))
        else { return false }
        return HostValidator.normalized(originHost) == HostValidator.normalized(requestHost)
            && effective(originPort, defaultPort) == effective(requestPort, defaultPort)
    }

    /// RFC 3986 §6.2.3: an empty or missing port is the scheme's default; leading zeros do not count.
    private static func effective(_ port: Substring?, _ defaultPort: Substring) -> Int? {
        guard let port, !port.isEmpty else { return Int(defaultPort) }
        return Int(port)
    }
}
