@testable import FiledropCore
@testable import FiledropHTTP

/// filedrop's app on `InMemoryStorage`, served without a socket (hummingbird's `.router` mode
/// next to `.live`): a request either goes through the route and its body consumer directly
/// (`send`), or as raw bytes through the same `ConnectionStateMachine` a live connection runs
/// (`exchange`). Blocking work runs inline, where a live server hands it to a worker.
struct InMemoryServer {
    let app: FiledropApp
    let storage: InMemoryStorage

    /// The app as the daemon builds it, with in-memory storage and web root; the optional
    /// parts (tus, access control, HTTPS, QR codes, the catalogues) as given.
    init(
        configuration: Configuration = Configuration(), storage: InMemoryStorage = InMemoryStorage(),
        log: any LogSink = NoLog(), compressor: (any ContentCompressor)? = nil, qrEncoder: (any QRCodeEncoder)? = nil,
        tusUploads: TusUploads? = nil,
        access: AccessControl? = nil, https: HTTPSPresentation? = nil, phoneAddress: PhoneAddress = PhoneAddress(lanURLs: []),
        hashing: (any UploadHashing)? = nil, languages: PageLanguages = PageLanguages()
    ) {
        self.storage = storage
        app = FiledropApp(
            configuration: configuration, storage: storage, webRoot: InMemoryStorage(),
            monitor: UploadMonitor(log: log, now: { 0 }), compressor: compressor, qrEncoder: qrEncoder,
            tusUploads: tusUploads,
            access: access, https: https, phoneAddress: phoneAddress, hashing: hashing, languages: languages)
    }

    static let context = RequestContext(client: "test", wallClockSeconds: 0)

    /// A request head with a Host field (none when `host` is nil) and `headers` after it.
    static func head(
        _ method: HTTPMethod, _ target: String, host: String? = "localhost", _ headers: HTTPHeaders = [:],
        version: HTTPVersion = .http1_1
    ) -> RequestHead {
        var all = HTTPHeaders()
        if let host { all.add(name: "Host", value: host) }
        for (name, value) in headers { all.add(name: name, value: value) }
        return RequestHead(method: method, target: target, version: version, headers: all)
    }

    /// The route's decision alone (blocking work run inline): `.respond` means no body byte is read.
    func decision(_ head: RequestHead, context: RequestContext = context) -> RouteDecision {
        app.route(head, context: context).resolvedInline()
    }

    /// The response without reading any body: nil when the route wanted the body.
    func answer(_ head: RequestHead, context: RequestContext = context) -> Response? {
        guard case .respond(let response) = decision(head, context: context) else { return nil }
        return response
    }

    /// Routes the head, feeds `body` in `pieces`, returns the final response.
    func send(_ head: RequestHead, body: [UInt8] = [], pieces: Int = 1, context: RequestContext = context) -> Response {
        RequestDriver.send(app.route(head, context: context), body: body, pieces: pieces)
    }

    /// Raw request bytes through a new connection; the driver holds what went out and
    /// whether the connection closed.
    func exchange(_ request: String, context: RequestContext = context) -> ConnectionDriver {
        var driver = ConnectionDriver(responder: app, context: context)
        driver.receive(request)
        return driver
    }

    /// A response's in-memory body as text ("" for a file or a stream).
    static func text(_ response: Response?) -> String {
        guard case .bytes(let bytes)? = response?.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }
}
