import FiledropHTTP

/// What a request asks for, read from its head once: access (`AccessPolicy`), the plain-HTTP
/// gate (`PlainHTTPGate`) and dispatch (`FiledropApp`) all switch over this value, and nothing
/// else reads the path.
///
/// ```
/// GET  /  /index.html  /app.js ...       .page            the page, from the web root
/// GET  /config.json                      .config          title and limits for the page
/// GET  /qr.svg                           .qrCode          the page's address as a QR code
/// GET  /ca.crt  /ca.mobileconfig  /trust .trust           installing the HTTPS CA
/// POST /upload.html  /upload             .uploadForm      multipart/form-data, or a raw body with ?name=
/// *    /files                            .filesRedirect   301 to /files/
/// *    /files/<path>                     .storedFile      download, listing, ZIP, PUT, DELETE, MOVE, MKCOL, OPTIONS
/// OPTIONS, POST /files/; /files/.tus/<id> .tus            resumable uploads (tus 1.0)
/// GET  /metrics                          .metrics         counters in the Prometheus text format
/// GET  /healthz                          .health          200 while the save directory takes uploads, else 503
/// *    /api/localsend/...                .localSend       the LocalSend receiver (`LocalSendRoute`), on its port only
/// ```
///
/// A method a page-like route does not take is `.methodRefused` (405, or 501 for a method
/// nobody knows); the stored-file and tus routes carry their refusal as an operation, because
/// their other checks (the path, the tus version) come first.
public enum Route: Sendable, Equatable {
    /// GET, HEAD: a file of the web root by its name (`/` is `index.html`).
    case page(name: Substring)
    case config
    case qrCode
    case trust(TrustRoute)
    case uploadForm
    /// `/files`, any method: the listing is `/files/`.
    case filesRedirect
    case storedFile(StoredFileRoute)
    case tus(TusRoute)
    case metrics
    /// GET, HEAD: for load balancers, which know no password.
    case health
    case localSend(LocalSendRoute)
    /// `method` on `route`, which does not take it.
    indirect case methodRefused(HTTPMethod, on: Route)

    /// Where the stored files live in the URL space.
    static let filesPrefix = "/files/"
    /// `filesPrefix` as a path component, for `LocationPath`.
    static let filesFolder = "files"

    /// `servesTus`: resumable uploads are on; without them `OPTIONS`/`POST /files/` and
    /// `/files/.tus/...` are stored-file requests like any other.
    public init(_ head: borrowing RequestHead, servesTus: Bool) {
        let path = head.path
        // A download is the common case: one byte comparison decides it.
        if path.hasASCIIPrefix(Self.filesPrefix) {
            let subpath = path[path.utf8.index(path.startIndex, offsetBy: Self.filesPrefix.utf8.count)...]
            if servesTus, let tus = TusRoute(head, filesSubpath: subpath) {
                self = .tus(tus)
            } else {
                self = .storedFile(StoredFileRoute(head, urlPath: subpath))
            }
            return
        }
        if let localSend = LocalSendRoute(method: head.method, path: path) {
            self = .localSend(localSend)
            return
        }
        switch path {
        case "/files":
            self = servesTus ? TusRoute(head, filesSubpath: "").map(Route.tus) ?? .filesRedirect : .filesRedirect
        case "/upload.html", "/upload":
            self = head.method == .post ? .uploadForm : .methodRefused(head.method, on: .uploadForm)
        case "/config.json":
            self = Self.reading(head.method, .config)
        case "/qr.svg":
            self = Self.reading(head.method, .qrCode)
        case "/ca.crt":
            self = Self.reading(head.method, .trust(.certificate))
        case "/ca.mobileconfig":
            self = Self.reading(head.method, .trust(.profile))
        case "/trust":
            self = Self.reading(head.method, .trust(.page))
        case "/metrics":
            self = Self.reading(head.method, .metrics)
        case "/healthz":
            self = Self.reading(head.method, .health)
        default:
            self = Self.reading(head.method, .page(name: path == "/" ? "index.html" : path.dropFirst()))
        }
    }

    /// The answer to `.methodRefused(method, on: route)`: 501 for a method nobody knows, else
    /// 405 with what the route takes.
    static func methodRefusal(_ method: HTTPMethod, on route: Route) -> HTTPError {
        if case .other = method { return .notImplemented("The \(method.description.logEscaped) method") }
        return .methodNotAllowed(allowed: route == .uploadForm ? [.post] : [.get, .head])
    }

    /// What a device must be able to load before it trusts the certificate (over plain HTTP,
    /// without a password): the trust routes, the stylesheet `/trust` links to and its script.
    var isNeededBeforeTrust: Bool {
        switch self {
        case .trust: true
        case .page(let name): name == "style.css" || name == FirstVisit.scriptName
        case .methodRefused(_, let route): route.isNeededBeforeTrust
        default: false
        }
    }

    private static func reading(_ method: HTTPMethod, _ route: Route) -> Route {
        method == .get || method == .head ? route : .methodRefused(method, on: route)
    }
}
