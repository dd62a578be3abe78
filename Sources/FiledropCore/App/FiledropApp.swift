import FiledropHTTP

/// filedrop's routes (the table is `Route`'s). Decides from the head alone whether a request
/// may proceed, so limits and refusals go out before the body is read (and instead of
/// `100 Continue`): the head is parsed into a `Route` once, access is decided over it, and
/// dispatch is one switch over it.
public struct FiledropApp: HTTPResponder {
    public let configuration: Configuration
    /// The save directory, for reads and DELETE; uploads go through `store`.
    public let storage: any Storage
    public let store: UploadStore
    public let webRoot: any Storage
    /// gzip and ZIP (zlib, in FiledropIO); nil sends everything uncompressed and refuses `?zip`.
    public let compressor: (any ContentCompressor)?
    public let qrEncoder: (any QRCodeEncoder)?
    /// Unfinished resumable uploads; nil switches tus off.
    public let tusUploads: TusUploads?
    public let access: AccessControl
    /// HTTPS as the page presents it (redirects, `/ca.crt`, `/trust`); nil when TLS is off.
    public let https: HTTPSPresentation?
    /// The daemon's LAN URLs, for the QR code and the page's link when it is opened on loopback.
    public let phoneAddress: PhoneAddress
    /// Open descriptors and resident memory for `/metrics`; nil leaves them out.
    public let processProbe: (any ProcessProbe)?
    /// The catalogues and the translated upload page (`LanguageChoice` picks one per request).
    public let languages: PageLanguages
    /// Whether the save directory takes uploads, for `/healthz`; one for every loop's copy.
    public let health: SaveDirectoryHealth
    /// The LocalSend receiver's sessions and device; nil while `localsend` is off.
    public let localSend: LocalSendReceiver?
    /// Per file version, so repeated downloads of one file reuse its header values.
    private(set) var downloadHeaders = FileHeaderCache()

    /// `access` defaults to the configuration's rules with no password verifier (so anything
    /// that needs the password is refused) and no names besides `localhost` and `allowed-hosts`.
    /// `https` is nil when TLS is off: then nothing here knows HTTPS exists.
    public init(
        configuration: Configuration, storage: any Storage, webRoot: any Storage, monitor: UploadMonitor,
        compressor: (any ContentCompressor)? = nil, qrEncoder: (any QRCodeEncoder)? = nil,
        tusUploads: TusUploads? = nil, access: AccessControl? = nil, https: HTTPSPresentation? = nil,
        phoneAddress: PhoneAddress = PhoneAddress(lanURLs: []), processProbe: (any ProcessProbe)? = nil,
        hashing: (any UploadHashing)? = nil, languages: PageLanguages = PageLanguages(),
        healthClock: (@Sendable () -> UInt64)? = nil, localSend: LocalSendReceiver? = nil
    ) {
        self.configuration = configuration
        self.webRoot = webRoot
        self.compressor = compressor
        self.qrEncoder = qrEncoder
        self.tusUploads = tusUploads
        self.https = https
        self.phoneAddress = phoneAddress
        self.processProbe = processProbe
        self.languages = languages
        self.access = access ?? AccessControl(configuration: configuration, now: { 0 })
        self.storage = storage
        self.localSend = localSend
        var store = UploadStore(storage: storage, policy: StoragePolicy(configuration: configuration), monitor: monitor)
        store.withholdsStoredNames = configuration.access == .drop
        store.hashing = configuration.sha256 ? hashing : nil
        self.store = store
        self.health = SaveDirectoryHealth(
            store: store, storage: storage, takesUploads: configuration.access != .readOnly, now: healthClock)
    }

    /// Publishes the resumable uploads that hold all their bytes but were never saved (the
    /// daemon stopped between the last byte and the rename). Blocking: run before serving.
    public func publishCompleteTusUploads() -> (saved: Int, kept: [(name: String, reason: String)]) {
        tusUploads?.publishComplete(store: store) ?? (0, [])
    }

    /// A copy for one event loop: the same configuration, storage and state, with a download
    /// header cache of its own, so loops serving downloads at once do not take turns at one lock.
    public func forEventLoop() -> FiledropApp {
        var copy = self
        copy.downloadHeaders = FileHeaderCache()
        return copy
    }

    public func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        var label = RequestLabel.unlabelled
        return route(head, context: context, label: &label)
    }

    /// Labelled with its `RequestKind`, the route label of the request-duration histogram.
    public func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision {
        let route = Route(head, servesTus: tusUploads != nil)
        label = route.requestKind(head).label
        let compression = ResponseCompression(compressor: compressor, head: head)
        return compressed(
            deciding(head) { () throws(HTTPError) in
                try dispatch(head, route: route, context: context, compression: compression)
            }, compression)
    }

    /// The connection's own errors (a malformed head, a timeout), in the client's format; in
    /// English, as they may come before a head says who reads them.
    public func response(for error: HTTPError, format: ResponseFormat) -> Response {
        .error(error, format: format)
    }

    /// gzip (and its Vary) where it applies, also to a decision reached after blocking work.
    /// Taken apart and rebuilt only when the server compresses: a file body never changes here.
    /// The decision is consumed, not copied: binding a response out of a borrowed decision
    /// copied the whole Response (a retain of each of its parts) for every request.
    private func compressed(_ decision: consuming RouteDecision, _ compression: ResponseCompression) -> RouteDecision {
        guard compression.serverCompresses else { return decision }
        switch consume decision {
        case .respond(let response):
            guard case .bytes = response.body else { return .respond(response) }
            return .respond(compression.apply(to: response))
        case .after(let work, let then):
            return .after(work) { compressed(then(), compression) }
        case .readBody(let consumer):
            return .readBody(consumer)
        }
    }

    /// The decision `body` makes, or its refusal in the client's format.
    private func deciding(_ head: RequestHead, _ body: () throws(HTTPError) -> RouteDecision) -> RouteDecision {
        do {
            return try body()
        } catch {
            return .respond(.error(error, format: ResponseFormat(head: head), text: languages.text(for: head)))
        }
    }

    private func dispatch(
        _ head: RequestHead, route: Route, context: RequestContext,
        compression: ResponseCompression
    ) throws(HTTPError) -> RouteDecision {
        // The LocalSend port serves LocalSend alone, and LocalSend is served nowhere else.
        if case .localSend = route {
            guard isLocalSendPort(context) else { throw .notFound }
        } else if isLocalSendPort(context) {
            throw .notFoundBecause("This port serves the LocalSend protocol only.")
        }
        if let https, https.gates(context) {
            // The Host check first: a redirect must never put a name we do not serve into a URL.
            try access.hosts.check(head)
            let gate = PlainHTTPGate(httpsPort: https.port, authority: https.authority, title: configuration.title)
            if let answer = gate.answer(head, route: route, text: languages.text(for: head)) {
                return .respond(answer)
            }
        }
        guard let passwordCheck = try access.check(head, route: route, context) else {
            return try admitted(head, route: route, context: context, compression: compression)
        }
        // The hash is slow on purpose: a worker verifies it, the loop goes on meanwhile.
        return .blocking("password", skippableWhenAbandoned: false, usesCPU: true, { passwordCheck.verify() }) { correct in
            deciding(head) { () throws(HTTPError) in
                try passwordCheck.conclude(correct: correct)
                return try admitted(head, route: route, context: context, compression: compression)
            }
        }
    }

    /// Routes a request that passed the access checks.
    private func admitted(
        _ head: RequestHead, route: Route, context: RequestContext,
        compression: ResponseCompression
    ) throws(HTTPError) -> RouteDecision {
        switch route {
        case .page(let name):
            if let answer = LanguageSwitch.answer(head, back: LocationPath(requestPath: head.path) ?? .root) {
                return .respond(answer)
            }
            if name == IndexPage.templateName, let page = languages.indexPage(LanguageChoice.language(for: head)) {
                return .respond(page.response(head: head, compression: compression))
            }
            return .respond(try StaticSite.response(for: name, head: head, webRoot: webRoot, compression: compression))
        case .config:
            return .respond(configResponse(head, context: context))
        case .qrCode:
            return .respond(try qrResponse(head))
        case .trust(let trustRoute):
            return .respond(try trustResponse(trustRoute, head: head))
        case .uploadForm:
            return try claimingUploadSlot(head, context: context) { admission throws(HTTPError) in
                try upload(head, context: context, admission: admission)
            }
        case .filesRedirect:
            return .respond(redirect(to: Self.url(of: .root, isDirectory: true)))
        case .storedFile(let file):
            return try storedFile(file, head: head, context: context, compression: compression)
        case .tus(let tusRoute):
            // Only parsed when tus is on.
            guard let tusUploads else { throw .notFound }
            return try claimingUploadSlot(head, context: context) { admission in
                TusHandler(
                    uploads: tusUploads, store: store, limits: TusLimits(configuration),
                    readOnly: configuration.access == .readOnly, admission: admission
                )
                .route(head, route: tusRoute, context: context)
            }
        case .metrics:
            return metricsPage()
        case .health:
            return healthPage(head)
        case .localSend(let localSendRoute):
            // LocalSend clients read JSON, whatever they send as Accept.
            return try claimingUploadSlot(head, context: context) { admission in
                do throws(HTTPError) {
                    return try serveLocalSend(localSendRoute, head: head, context: context, admission: admission)
                } catch {
                    return .respond(Self.localSendError(error))
                }
            }
        case .methodRefused(let method, .uploadForm) where method == .get || method == .head:
            // The no-script form's result page reopened (from history, a bookmark, a shared
            // link): it has no GET of its own to show, so the page to send more files is the answer.
            return .respond(redirect(to: .root, status: .seeOther))
        case .methodRefused(let method, let refusing):
            throw Route.methodRefusal(method, on: refusing)
        }
    }

    /// Runs a route that may read an upload with a claim on the client's upload slots: every
    /// body this app reads is an upload, and the route takes the slot (`UploadAdmission.admit`)
    /// before the upload leaves any trace. Only these routes make one: a download or the page
    /// reads no body, and claims nothing.
    func claimingUploadSlot(
        _ head: RequestHead, context: RequestContext,
        _ route: (UploadAdmission) throws(HTTPError) -> RouteDecision
    ) throws(HTTPError) -> RouteDecision {
        let admission = UploadAdmission(
            access: access, client: context.client, bodyLength: declaredLength(head),
            target: head.target, monitor: store.monitor)
        do {
            return admission.settle(try route(admission))
        } catch {
            admission.giveBack()
            throw error
        }
    }

    // MARK: - Helpers

    func redirect(to location: LocationPath, status: HTTPStatus = .movedPermanently) -> Response {
        Response(
            status: status, headers: [.location: location.description, .contentType: ResponseFormat.text.contentType],
            body: .bytes(Array("Moved to \(location)\n".utf8)))
    }

    /// A QR code of the address the page was opened with (over HTTPS when it is on), or of the
    /// machine's LAN address when that was loopback, so a phone can scan it from a laptop's
    /// screen. Only rectangles go into the SVG; the Host text itself never does.
    private func qrResponse(_ head: RequestHead) throws(HTTPError) -> Response {
        guard let url = phoneAddress.url(forPageURL: pageURL(head)), let encoder = qrEncoder, let code = encoder.encode(url)
        else {
            throw .notFound
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/svg+xml", .cacheControl: "no-cache",
                .contentSecurityPolicy: SecurityPolicy.inlineStyledDocument.contentSecurityPolicy,
            ],
            body: .bytes(Array(code.svg.utf8)))
    }

    /// `Tests/Fixtures/json/config.json` (and `config-https.json`): what the page needs to
    /// follow the server. `phoneURL` is what the QR code says; the page prints it next to it.
    private func configResponse(_ head: RequestHead, context: RequestContext) -> Response {
        let body = JSONWriter.document { json in
            json.object { json in
                json.member("title", configuration.title)
                json.member("maxUploadSize", configuration.maxUploadSize)
                json.member("readOnly", configuration.access == .readOnly)
                json.member("tus", tusUploads != nil)
                json.member("access", configuration.access.rawValue)
                json.member("allowDelete", configuration.allowDelete)
                json.member("allowRename", configuration.allowDelete && configuration.access != .readOnly)
                json.member("phoneURL", phoneAddress.url(forPageURL: pageURL(head)))
                json.key("lanURLs")
                json.array { json in
                    for url in phoneAddress.reachableURLs { json.string(url) }
                }
                json.member("loopbackOnly", phoneAddress.isLoopbackOnly)
                writeHTTPSConfig(head, context: context, to: &json)
            }
        }
        return Response(
            status: .ok, headers: [.contentType: ResponseFormat.json.contentType, .cacheControl: "no-cache"],
            body: .bytes(body))
    }
}
