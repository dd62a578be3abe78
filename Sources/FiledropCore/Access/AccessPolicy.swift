/// Which requests need the password, by access mode (`access`):
///
/// ```
///             page, config.json   uploads (POST /upload, PUT /files/..,   listing, downloads   DELETE
///                                 tus under /files/ and /files/.tus/)
/// open        anyone              anyone                                  anyone               password if one is set
/// drop        anyone              anyone                                  password             password
/// private     password            password                                password             password
/// read-only   anyone              refused (403, by the upload routes)     anyone               refused
/// ```
///
/// DELETE also needs `allow-delete`; with a password configured it needs the password in
/// every mode, because deleting is the one thing an open drop box must not let anyone do.
///
/// With HTTPS on, the trust routes (`/ca.crt`, `/ca.mobileconfig`, `/trust`) and the
/// stylesheet `/trust` uses need no password in any mode: a device needs them before it can
/// trust HTTPS, and a 401 there would have a browser send the password over plain HTTP.
public struct AccessPolicy: Sendable, Equatable {
    public enum Requirement: Sendable, Equatable {
        case anyone
        case password
    }

    public var mode: AccessMode
    public var hasPassword: Bool
    /// HTTPS is on, so the trust routes are public.
    public var publishesTrustRoutes: Bool

    public init(mode: AccessMode, hasPassword: Bool, publishesTrustRoutes: Bool = false) {
        self.mode = mode
        self.hasPassword = hasPassword
        self.publishesTrustRoutes = publishesTrustRoutes
    }

    public func requirement(method: HTTPMethod, path: Substring) -> Requirement {
        if mode == .private {
            return publishesTrustRoutes && TrustRoute.isNeededBeforeTrust(path) ? .anyone : .password
        }
        // Outside drop mode only DELETE can need the password: no path to look at (this runs
        // on every request).
        if mode != .drop && method != .delete { return .anyone }
        // Resumable uploads (tus, `/files/.tus/<id>`) are uploads: each random id is the
        // capability of whoever created it, and terminating one removes no stored file.
        if path.hasASCIIPrefix(TusHandler.uploadPrefix) { return .anyone }
        if method == .delete && (hasPassword || mode == .drop) { return .password }
        guard mode == .drop, path == "/files" || path.hasASCIIPrefix("/files/") else { return .anyone }
        switch method {
        case .put, .options: return .anyone
        // tus creation (`POST /files/`); a POST anywhere else under /files/ is refused by the routes.
        case .post: return .anyone
        default: return .password
        }
    }
}
