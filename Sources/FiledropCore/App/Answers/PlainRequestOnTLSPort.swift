import FiledropHTTP

/// What a plain-HTTP request sent to the HTTPS port gets, like nginx's 497: a `400` whose
/// sentence names the HTTPS URL that was meant, on a browser's page in its language (the
/// request's head is parsed, so `LanguageChoice` has its fields). The connection closes after
/// it (the I/O layer sees to that): this port has nothing else to say in clear text.
///
/// Bytes that are neither a TLS handshake nor an HTTP head never get here: they are a
/// protocol error of the connection (400 from `ConnectionStateMachine`, in English, as no
/// head says who reads it), or the TLS layer's failure, which has no page at all.
public struct PlainRequestOnTLSPort: HTTPResponder {
    /// The port the request arrived on, which speaks HTTPS.
    public let port: UInt16
    /// The catalogues for a browser's page; nil: English without the pages' translated parts.
    let languages: PageLanguages?

    public init(port: UInt16, languages: PageLanguages? = nil) {
        self.port = port
        self.languages = languages
    }

    public func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        let message = "This port speaks HTTPS: \(httpsURL(for: head)) (plain HTTP sent to it is not served)."
        return .respond(.error(.badRequest(message), format: ResponseFormat(head: head), text: languages?.text(for: head)))
    }

    public func response(for error: HTTPError, format: ResponseFormat) -> Response {
        .error(error, format: format)
    }

    /// `https://HOST:PORT/PATH`, from the request's own Host when it is a plain host name or
    /// address literal (anything else is not echoed back), and a path of URL characters only.
    func httpsURL(for head: RequestHead) -> String {
        var host = "this-server"
        // IPv6 literals keep their brackets (RFC 3986 §3.2.2).
        if let field = head.headers[.host], let split = HostValidator.split(authority: Substring(field)),
            Self.isEchoable(String(split.host))
        {
            host = String(split.host)
        }
        let path = head.target.hasPrefix("/") && Self.isEchoable(head.target) ? head.target : "/"
        return port == 443 ? "https://\(host)\(path)" : "https://\(host):\(port)\(path)"
    }

    private static func isEchoable(_ text: String) -> Bool {
        text.utf8.count <= 2048
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                    || "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
            }
    }
}
