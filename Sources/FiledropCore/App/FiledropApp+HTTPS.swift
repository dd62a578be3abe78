import FiledropHTTP

/// What the app says about HTTPS: the trust routes, the page's own address for the QR code,
/// and the `https` part of `/config.json` the page's footer is made from. The plain-HTTP
/// port's redirects and refusals are `PlainHTTPGate`'s.
extension FiledropApp {
    /// `/ca.crt`, `/ca.mobileconfig` or `/trust`; 404 with the reason where there is nothing
    /// to install.
    func trustResponse(_ route: TrustRoute, head: RequestHead) throws(HTTPError) -> Response {
        guard let https else {
            throw .notFoundBecause("HTTPS is off on this server, so there is no certificate to install.")
        }
        let address = HTTPSURL(head: head, port: https.port)
        switch route {
        case .page:
            return TrustPage(
                title: configuration.title, authority: https.authority, https: address,
                text: languages.text(for: head)
            ).response()
        case .certificate:
            return CertificateDownload.response(try Self.localAuthority(of: https), head: head)
        case .profile:
            let authority = try Self.localAuthority(of: https)
            return MobileConfigProfile(anchor: authority, serverName: address?.host ?? authority.commonName).response()
        }
    }

    private static func localAuthority(of https: HTTPSPresentation) throws(HTTPError) -> TrustAnchor {
        guard let authority = https.authority else {
            throw .notFoundBecause(
                "This server's certificate comes from its operator, not from a certificate authority of "
                    + "filedrop's own, so there is nothing to install.")
        }
        return authority
    }

    /// Plain HTTP sent to the HTTPS port, answered on a browser's page in its language.
    public func plainRequestOnTLSPort(port: UInt16) -> any HTTPResponder {
        PlainRequestOnTLSPort(port: port, languages: languages)
    }

    /// The address a phone should open to reach the page the request came from: over HTTPS
    /// (its port) when HTTPS is on, whatever port this request came in on; with filedrop's own
    /// CA, `/trust` over plain HTTP, which goes on to HTTPS by itself once the phone trusts it.
    func pageURL(_ head: RequestHead) -> String? {
        if let https {
            guard let address = HTTPSURL(head: head, port: https.port) else { return nil }
            return https.firstVisitURL(host: address.host) ?? address.root
        }
        return head.headers[.host].map { "http://\($0)/" }
    }

    /// The `https` member, `{"secure":...,"port":...,"url":...,"localCA":...,"fingerprint":...}`,
    /// when HTTPS is on: whether this request came over it, the page over HTTPS, and the CA to
    /// show in the footer (`fingerprint` is null without one of filedrop's own).
    func writeHTTPSConfig(_ head: RequestHead, context: RequestContext, to json: inout JSONWriter) {
        guard let https else { return }
        json.key("https")
        json.object { json in
            json.member("secure", context.isSecure)
            json.member("port", https.port)
            json.member("url", HTTPSURL(head: head, port: https.port)?.root)
            json.member("localCA", https.authority != nil)
            json.member("fingerprint", https.authority?.fingerprintSHA256)
        }
    }
}
