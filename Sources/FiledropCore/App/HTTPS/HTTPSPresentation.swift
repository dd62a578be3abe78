import FiledropHTTP

/// What the page side of filedrop needs to know about HTTPS, handed to `FiledropApp` by the
/// daemon when TLS is on: where clients should go (the HTTPS port), what the plain-HTTP port
/// does meanwhile, and the certificate authority a person installs to trust the server.
///
/// The app only presents these facts (redirects, `/ca.crt`, `/trust`, the page's footer);
/// the TLS itself happens in the I/O layer, which marks requests with `RequestContext.isSecure`.
public struct HTTPSPresentation: Sendable {
    /// The HTTPS port clients should use (in redirects, the QR code, the page's links).
    public var port: UInt16
    /// What the plain-HTTP port does while HTTPS is on.
    public var plainHTTPMode: PlainHTTPMode
    /// filedrop's own CA with `tls = auto`; nil with `tls = files`, where the certificate
    /// comes from the operator and nothing needs installing.
    public var authority: TrustAnchor?
    /// The plain-HTTP port, nil when nothing listens for plain HTTP.
    public var plainPort: UInt16?

    public init(port: UInt16, plainHTTPMode: PlainHTTPMode, authority: TrustAnchor?, plainPort: UInt16? = nil) {
        self.port = port
        self.plainHTTPMode = plainHTTPMode
        self.authority = authority
        self.plainPort = plainPort
    }

    /// Where a new device should start, `http://host:port/trust` (the plain port's first
    /// visit, `FirstVisit`), when there is one: filedrop's own CA, and a plain port that
    /// redirects. A device that trusts the CA already goes on to HTTPS from there by itself.
    func firstVisitURL(host: String) -> String? {
        guard authority != nil, plainHTTPMode == .redirect, let plainPort else { return nil }
        return "http://" + host + (plainPort == 80 ? "" : ":\(plainPort)") + "/trust"
    }

    /// Whether a request that arrived over plain HTTP passes `PlainHTTPGate` first: always,
    /// but with `serve` (with `off` no plain request should arrive; should one, it is gated).
    func gates(_ context: RequestContext) -> Bool {
        !context.isSecure && plainHTTPMode != .serve
    }
}
