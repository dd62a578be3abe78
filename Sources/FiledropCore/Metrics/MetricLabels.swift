/// What became of an upload: the `result` label of the upload counters.
public enum UploadResult: String, Sendable, CaseIterable {
    /// Saved under its name.
    case stored
    /// Started (a file was opened) and then discarded: cut off, too large, disk full.
    case failed
    /// Turned away before any byte was read (413, 429, 401, 507, read-only...).
    case refused
}

/// What a finished hook run came to (`on-upload`): counted by `hookFinished(outcome:)`.
public enum HookOutcome: Sendable {
    /// Exited with status 0.
    case succeeded
    /// Exited with another status, was killed by a signal, or could not be started.
    case failed
    /// Still running at its timeout, and killed.
    case timedOut
}

/// A small fixed set of what requests ask for: the `route` label of the request-duration
/// histogram. Never a path, so the number of series stays bounded whatever clients send.
public enum RequestKind: String, Sendable, CaseIterable {
    /// The page, `/config.json`, `/qr.svg`, the trust routes and redirects.
    case page
    case download
    case listing
    case formUpload = "form_upload"
    case putUpload = "put_upload"
    /// tus creation and PATCH: requests that carry an upload's bytes or start one.
    case tusUpload = "tus_upload"
    /// tus OPTIONS, HEAD and DELETE.
    case tusControl = "tus_control"
    case delete
    /// MOVE (rename) and MKCOL (new folder).
    case fileOperation = "file_operation"
    case metrics
    /// `/healthz`, from load balancers.
    case health
    /// LocalSend `upload`: one file's bytes.
    case localSendUpload = "localsend_upload"
    /// LocalSend `info`, `register`, `prepare-upload` and `cancel`.
    case localSendControl = "localsend_control"
    /// A refused method, or a request that never got as far as a route (malformed, timed out).
    case other

    /// The upload method whose refusals a refused request of this kind counts as.
    public var uploadMethod: UploadMethod? {
        switch self {
        case .formUpload: .form
        case .putUpload: .put
        case .tusUpload: .tus
        case .localSendUpload: .localsend
        default: nil
        }
    }
}
