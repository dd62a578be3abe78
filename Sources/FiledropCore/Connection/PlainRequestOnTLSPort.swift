/// What a plain-HTTP request sent to the HTTPS port gets, like nginx's 497: a `400` whose
/// sentence names the HTTPS URL that was meant. The connection closes after it (the I/O
/// layer sees to that): this port has nothing else to say in clear text.
public struct PlainRequestOnTLSPort: HTTPResponder {
    /// The port the request arrived on, which speaks HTTPS.
    public let port: UInt16

    public init(port: UInt16) {
        self.port = port
    }

    public func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        let message = "This port speaks HTTPS: \(httpsURL(for: head)) (plain HTTP sent to it is not served)."
        return .respond(.error(.badRequest(message), format: ResponseFormat(head: head)))
    }

    /// `https://HOST:PORT/PATH`, from the request's own Host when it is a plain host name or
    /// address literal (anything else is not echoed back), and a path of URL characters only.
    func httpsURL(for head: RequestHead) -> String {
        var host = "this-server"
        // IPv6 literals keep their brackets (RFC 3986 §3.2.2).
        if let field = head.headers[.host], let split = HostValidator.split(authority: Substring(field)),
           Self.isEchoable(String(split.host)) {
            host = String(split.host)
        }
        let path = head.target.hasPrefix("/") && Self.isEchoable(head.target) ? head.target : "/"
        return port == 443 ? "https://\(host)\(path)" : "https://\(host):\(port)\(path)"
    }

    private static func isEchoable(_ text: String) -> Bool {
        text.utf8.count <= 2048 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
        }
    }
}
