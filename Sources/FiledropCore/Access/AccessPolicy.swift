import FiledropHTTP

/// Which requests need the password, by access mode (`access`):
///
/// ```
///             page, config.json   uploads (POST /upload, PUT /files/..,   listing, downloads,  DELETE, MOVE
///                                 tus under /files/ and /files/.tus/)     ZIP, MKCOL
/// open        anyone              anyone                                  anyone               password if one is set
/// drop        anyone              anyone                                  password             password
/// private     password            password                                password             password
/// read-only   anyone              refused (403, by the upload routes)     anyone (MKCOL 403)   refused
/// ```
///
/// MKCOL goes with the listing because its answer (201, or 405 for a name that exists) tells
/// which names exist, which drop mode hides from anyone without the password; MOVE goes with
/// DELETE because a rename removes the old name (and needs `allow-delete` too).
///
/// The columns are `Route`s: page-like routes, `.uploadForm`, `.storedFile` operations and
/// `.tus`; `/files` (the redirect to the listing) goes as the listing. Outside private mode, a
/// method a route refuses (405, 501) needs the password only as a DELETE does, or under
/// /files/ in drop mode as a read does unless it is a POST or PUT.
///
/// DELETE also needs `allow-delete`; with a password configured it needs the password in
/// every mode, because deleting is the one thing an open drop box must not let anyone do.
///
/// With HTTPS on, the trust routes (`/ca.crt`, `/ca.mobileconfig`, `/trust`) and the
/// stylesheet `/trust` uses need no password in any mode: a device needs them before it can
/// trust HTTPS, and a 401 there would have a browser send the password over plain HTTP.
///
/// `/healthz` is open in every mode, private too: a load balancer has no password, and the
/// answer says only whether uploads can be saved now.
///
/// The LocalSend routes (`/api/localsend/v2/...`, on the LocalSend port only) need no password
/// in any mode: the LocalSend app has no way to send one. Their own rule, the PIN and what each
/// mode allows, is `LocalSendAcceptPolicy`'s.
///
/// `/metrics` follows `metrics-access` alone, in every mode: `off` hides it (404), `loopback`
/// lets only this machine's peers in (403 for others), `password` and `open` as they say.
public struct AccessPolicy: Sendable, Equatable {
    public enum Requirement: Sendable, Equatable {
        case anyone
        case password
        /// A peer on this machine (127.0.0.0/8, ::1).
        case loopbackPeer
        /// Nobody: the route is off and answers 404.
        case nobody
    }

    public var mode: AccessMode
    public var hasPassword: Bool
    /// HTTPS is on, so the trust routes are public.
    public var publishesTrustRoutes: Bool
    public var metricsAccess: MetricsAccess

    public init(mode: AccessMode, hasPassword: Bool, publishesTrustRoutes: Bool = false, metricsAccess: MetricsAccess = .loopback)
    {
        self.mode = mode
        self.hasPassword = hasPassword
        self.publishesTrustRoutes = publishesTrustRoutes
        self.metricsAccess = metricsAccess
    }

    /// The whole table, over what the request asks for.
    public func requirement(for route: Route) -> Requirement {
        if route == .metrics {
            switch metricsAccess {
            case .off: return .nobody
            case .loopback: return .loopbackPeer
            case .password: return .password
            case .open: return .anyone
            }
        }
        if route == .health { return .anyone }
        if case .localSend = route { return .anyone }
        if mode == .private {
            return publishesTrustRoutes && route.isNeededBeforeTrust ? .anyone : .password
        }
        switch route {
        case .page, .config, .qrCode, .trust, .uploadForm, .metrics, .health, .localSend:
            return .anyone
        // Resumable uploads are uploads: each random id is the capability of whoever created
        // it, and terminating one removes no stored file.
        case .tus:
            return .anyone
        case .filesRedirect:
            return mode == .drop ? .password : .anyone
        case .methodRefused(let method, _):
            return method == .delete || method == .move ? deleting : .anyone
        case .storedFile(let file):
            switch file.operation {
            case .download, .sha256, .listing, .zipSelection, .makeFolder: return mode == .drop ? .password : .anyone
            case .upload, .options: return .anyone
            case .delete, .move: return deleting
            // Refused by the route: a POST or PUT the drop box takes elsewhere, anything else
            // as a read.
            case .methodRefused(let method, _): return mode == .drop && method != .post && method != .put ? .password : .anyone
            }
        }
    }

    /// DELETE: the password when one is set, and always in drop mode.
    private var deleting: Requirement {
        hasPassword || mode == .drop ? .password : .anyone
    }
}

extension HTTPError {
    /// The answer to every upload (form, PUT, tus) in read-only mode.
    static let readOnlyServer = HTTPError.forbidden("This server is read-only: uploads are switched off.")
}
