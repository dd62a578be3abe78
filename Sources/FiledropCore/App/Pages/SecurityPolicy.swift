import FiledropHTTP

/// What a browser may do with one kind of response: its Content-Security-Policy (W3C CSP
/// Level 3), made of typed directives. The engine adds its defensive fields to every
/// response that sets none (`ResponseHeadSerializer.defaultFields`, whose policy is `nothing`).
/// Every policy the server sends is one of the values below, so a reader
/// sees all of them, and what sets them apart, on one screen.
///
/// Each value is written out once per process (`contentSecurityPolicy`); a response takes the
/// String as it is, with nothing built per request.
public struct SecurityPolicy: Sendable, Equatable {
    /// The `Content-Security-Policy` field value.
    public let contentSecurityPolicy: String

    init(_ directives: Directive...) {
        contentSecurityPolicy = directives.map(\.text).joined(separator: "; ")
    }

    /// Where a directive lets content come from (CSP3 §2.3.1 source expressions).
    enum Source {
        /// `'none'`: nothing at all.
        case nothing
        /// `'self'`: this server's origin.
        case sameOrigin
        /// `data:` URLs (the page's empty icon, inline images).
        case dataURLs
        /// `'unsafe-inline'`: `style` attributes and elements in the document itself.
        case inlineStyles
        /// One origin, `https://host:port`: a host made of letters, digits, `-` and dots only.
        case origin(String)

        var text: String {
            switch self {
            case .nothing: "'none'"
            case .sameOrigin: "'self'"
            case .dataURLs: "data:"
            case .inlineStyles: "'unsafe-inline'"
            case .origin(let origin): origin
            }
        }
    }

    /// One directive: a name and its sources, or `sandbox` alone (CSP3 §6.3.2: no script,
    /// no forms, no plugins, a unique origin).
    struct Directive {
        let text: String

        private init(_ name: String, _ sources: [Source]) {
            text = ([name] + sources.map(\.text)).joined(separator: " ")
        }

        static let sandbox = Directive("sandbox", [])
        static func defaultSrc(_ sources: Source...) -> Directive { Directive("default-src", sources) }
        static func imgSrc(_ sources: Source...) -> Directive { Directive("img-src", sources) }
        static func styleSrc(_ sources: Source...) -> Directive { Directive("style-src", sources) }
        static func scriptSrc(_ sources: Source...) -> Directive { Directive("script-src", sources) }
        static func connectSrc(_ sources: Source...) -> Directive { Directive("connect-src", sources) }
        /// Service workers (CSP3 `worker-src`); said outright rather than left to the fallback
        /// through `child-src` and `script-src` to `default-src`.
        static func workerSrc(_ sources: Source...) -> Directive { Directive("worker-src", sources) }
        /// The web app manifest (CSP3 `manifest-src`).
        static func manifestSrc(_ sources: Source...) -> Directive { Directive("manifest-src", sources) }
        static func mediaSrc(_ sources: Source...) -> Directive { Directive("media-src", sources) }
        static func objectSrc(_ sources: Source...) -> Directive { Directive("object-src", sources) }
        /// Who may frame the response (CSP3 §6.4.2; `X-Frame-Options` for older browsers).
        static func frameAncestors(_ sources: Source...) -> Directive { Directive("frame-ancestors", sources) }
        static func formAction(_ sources: Source...) -> Directive { Directive("form-action", sources) }
        static func baseURI(_ sources: Source...) -> Directive { Directive("base-uri", sources) }
    }
}

extension SecurityPolicy {
    /// A response with no policy of its own (JSON, text, redirects, 304s) may run nothing and
    /// be framed by nobody, should a browser ever render one as a document.
    public static let nothing = SecurityPolicy(.defaultSrc(.nothing), .frameAncestors(.nothing))

    /// The upload page and its assets: everything from our origin (its service worker and
    /// manifest too), no inline script, no framing, forms only to us.
    public static let uploadPage = SecurityPolicy(
        .defaultSrc(.sameOrigin), .imgSrc(.sameOrigin, .dataURLs), .styleSrc(.sameOrigin), .scriptSrc(.sameOrigin),
        .connectSrc(.sameOrigin), .workerSrc(.sameOrigin), .manifestSrc(.sameOrigin), .frameAncestors(.nothing),
        .formAction(.sameOrigin), .baseURI(.nothing), .objectSrc(.nothing))

    /// Pages built here with the page's stylesheet and no script: listings, upload reports.
    public static let generatedPage = SecurityPolicy(.defaultSrc(.nothing), .styleSrc(.sameOrigin), .imgSrc(.sameOrigin))

    /// Self-contained documents with inline styles and nothing else: error pages, the QR code.
    public static let inlineStyledDocument = SecurityPolicy(.defaultSrc(.nothing), .styleSrc(.inlineStyles))

    /// `/trust` over HTTPS, or with the operator's certificate: no script and no form; the
    /// stylesheet and the empty `data:` icon are all it loads.
    public static let trustPage = SecurityPolicy(
        .defaultSrc(.nothing), .styleSrc(.sameOrigin), .imgSrc(.sameOrigin, .dataURLs), .frameAncestors(.nothing),
        .baseURI(.nothing), .formAction(.nothing))

    /// `/trust` over plain HTTP (`FirstVisit`): as `trustPage`, plus its one script from this
    /// origin and the one request that script makes, to the HTTPS origin, to learn whether
    /// this device trusts the certificate. Made per visit: the origin is the host the browser
    /// named.
    static func firstVisit(probing httpsOrigin: String) -> SecurityPolicy {
        SecurityPolicy(
            .defaultSrc(.nothing), .styleSrc(.sameOrigin), .imgSrc(.sameOrigin, .dataURLs), .scriptSrc(.sameOrigin),
            .connectSrc(.origin(httpsOrigin)), .frameAncestors(.nothing), .baseURI(.nothing), .formAction(.nothing))
    }

    /// A stored file, inline or not: sandboxed, so even an HTML upload that slips through can
    /// do nothing (no script, no plugins, no forms); images, media and inline styles still show.
    public static let storedFile = SecurityPolicy(
        .sandbox, .defaultSrc(.nothing), .imgSrc(.sameOrigin, .dataURLs), .mediaSrc(.sameOrigin), .styleSrc(.inlineStyles))
}

extension HTTPHeaders {
    /// Sets the response's Content-Security-Policy to `policy`'s.
    public mutating func add(policy: SecurityPolicy) {
        add(.contentSecurityPolicy, policy.contentSecurityPolicy)
    }
}
