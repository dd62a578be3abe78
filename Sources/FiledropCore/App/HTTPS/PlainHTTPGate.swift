import FiledropHTTP

/// The plain-HTTP port while HTTPS is on (`http-mode = redirect`): nothing that must stay
/// secret crosses it. Runs after `HostValidator` (a redirect must never carry a foreign name
/// into a URL) and before the password check (a 401 here would make a browser send the
/// password in the clear).
///
/// - A request that would send a password (`Authorization`) or a file (any method but GET
///   and HEAD, any body) is refused with a sentence naming the HTTPS URL, before its body is
///   read: the connection then closes rather than read an upload nobody stores.
/// - The trust routes (`/ca.crt`, `/ca.mobileconfig`, `/trust` and its stylesheet) are
///   served as usual: a device needs them before it can trust HTTPS.
/// - `/metrics` without a password is served as usual (`metrics-access` decides), so a
///   scraper on this machine needs no CA; with `metrics-access = password` it is refused
///   here like any request that carries one.
/// - `/healthz` is served as usual: a balancer may check the plain port, and the answer
///   carries nothing secret.
/// - With filedrop's own CA (`tls = auto`), a browser (`Accept: text/html`) asking for `/trust`
///   or any other page gets `/trust` as a first visit (`FirstVisit`): a redirect would end at
///   a certificate warning on every device that does not trust the CA yet, with nothing
///   saying why or what to do. The page links on to the same resource over HTTPS and goes
///   there by itself where the device trusts the CA already.
/// - Any other GET or HEAD is redirected to the same path and query over HTTPS: programs
///   (curl, no `Accept: text/html`) follow a redirect and have their own way to trust a CA.
///
/// No `Strict-Transport-Security` is sent, over either port. RFC 6797 §8.1.1: browsers
/// ignore it for IP-literal hosts, which is how a LAN server without a domain is reached, so
/// it would protect nothing there; where it is kept (`name.local`, `allowed-hosts`), it binds
/// every port of that name (§8.3 keeps the port when upgrading), so `http://name:8080` would
/// become `https://name:8080`, the plain port, which speaks no TLS, and so would every other
/// plain-HTTP service on that machine. It would also lock out browsers for a year after
/// someone switches TLS off, and forbid clicking through the warning before the CA is
/// installed. The redirect below does the work on the LAN, and is not cached for the same
/// reason.
struct PlainHTTPGate: Sendable {
    let httpsPort: UInt16
    /// filedrop's own CA, nil with the operator's certificate (which devices trust already:
    /// nothing to learn first, so browsers are redirected too).
    var authority: TrustAnchor? = nil
    /// The server's title, for the first-visit page.
    var title: String = ""

    /// The answer to a plain-HTTP request, or nil when it is served as usual; a refusal's page
    /// is in `text`'s language.
    func answer(_ head: RequestHead, route: Route, text: PageText? = nil) -> Response? {
        let https = HTTPSURL(head: head, port: httpsPort)
        if sendsSecret(head) {
            return refusal(head, https: https, text: text)
        }
        if let https, let authority, let text, let visit = firstVisit(head, route: route, https: https) {
            var page = TrustPage(title: title, authority: authority, https: https, text: text, firstVisit: visit).response()
            // The same URL is a redirect for a program: a cache must tell them apart.
            page.headers.addVary("Accept")
            return page
        }
        if route.isNeededBeforeTrust || route == .metrics || route == .health { return nil }
        guard let https else {
            return .error(
                .badRequest(
                    "This port sends browsers to HTTPS on port \(httpsPort), but the request names no "
                        + "host (no Host header) to send them to."), format: ResponseFormat(head: head), text: text)
        }
        return redirect(to: https.sameResource(as: head))
    }

    /// A browser's visit to `/trust` or to a page: where the secure page is. Nil for the other
    /// trust routes (`/ca.crt`, the stylesheet), for `/metrics` and `/healthz`, and for
    /// clients that do not ask for HTML.
    private func firstVisit(_ head: RequestHead, route: Route, https: HTTPSURL) -> FirstVisit? {
        if route == .trust(.page) { return FirstVisit(secureURL: https.root, https: https) }
        if route.isNeededBeforeTrust || route == .metrics || route == .health { return nil }
        if case .methodRefused = route { return nil }
        guard ResponseFormat(head: head) == .html else { return nil }
        return FirstVisit(secureURL: https.sameResource(as: head), https: https)
    }

    /// A password, a file or any change: every method but GET and HEAD, any request with
    /// credentials or with a body.
    private func sendsSecret(_ head: RequestHead) -> Bool {
        guard head.method == .get || head.method == .head else { return true }
        if head.headers.contains(.authorization) { return true }
        // The connection already checked the framing, so this cannot throw here.
        let framing = (try? BodyFraming.of(head))?.framing ?? .none
        return framing != .none && framing != .length(0)
    }

    /// 403: the request is understood and well formed, and is refused for how it travels.
    /// 401 would ask for the password again over the same plain connection, and 426 Upgrade
    /// Required (RFC 9110 §15.5.22) means upgrading this very connection with `Upgrade:`
    /// (RFC 2817), which no browser or curl does; nginx has no status of its own for this (its
    /// 497 is the other way round: plain HTTP sent to the HTTPS port). The sentence names
    /// the HTTPS URL to use instead, in the client's format (HTML, JSON or text).
    private func refusal(_ head: RequestHead, https: HTTPSURL?, text: PageText?) -> Response {
        let target = https.map { ": " + $0.sameResource(as: head) } ?? " (port \(httpsPort))"
        let sentence =
            "This server takes uploads and passwords only over HTTPS, so nobody on the network can read them"
            + target
        return .error(.forbidden(sentence), format: ResponseFormat(head: head), text: text)
    }

    /// 308 keeps the method (RFC 9110 §15.4.9), so a HEAD stays a HEAD. `no-store`: a
    /// browser keeps a permanent redirect it may cache for good, and this one must end
    /// when TLS is switched off.
    private func redirect(to location: String) -> Response {
        Response(
            status: .permanentRedirect,
            headers: [.location: location, .contentType: ResponseFormat.text.contentType, .cacheControl: "no-store"],
            body: .bytes(Array("This server answers over HTTPS: \(location)\n".utf8)))
    }
}
