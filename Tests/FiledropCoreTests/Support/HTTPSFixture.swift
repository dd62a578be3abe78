@testable import FiledropCore

/// An app with HTTPS on, in memory: requests marked as arriving over the plain port or the
/// HTTPS one, with any Host, as the I/O layer would mark them.
struct HTTPSFixture {
    /// A made-up CA: the bytes need not be a real certificate for the routes to serve them.
    static let anchor = TrustAnchor(
        certificateDER: [0x30, 0x82, 0x01, 0x0A] + (0..<250).map { UInt8(truncatingIfNeeded: $0 &* 37) },
        fingerprintSHA256: "3F:A1:07:C2:9B:5D:E4:18:6A:F0:23:8C:D9:41:B7:5E:02:CC:9A:6F:13:E8:B4:70:5D:2A:F9:C6:81:3E:47:DB",
        commonName: "filedrop CA on laptop")

    let app: FiledropApp
    let storage: InMemoryStorage

    init(mode: PlainHTTPMode = .redirect, authority: TrustAnchor? = anchor, port: UInt16 = 8443,
         qrEncoder: (any QRCodeEncoder)? = nil, _ configure: (inout Configuration) -> Void = { _ in }) {
        var configuration = Configuration()
        configuration.tls = authority == nil ? .files : .auto
        configuration.httpMode = mode
        configure(&configuration)
        storage = InMemoryStorage()
        let https = HTTPSPresentation(port: port, plainHTTPMode: mode, authority: authority)
        app = FiledropApp(configuration: configuration, storage: storage, webRoot: InMemoryStorage(),
                          monitor: UploadMonitor(log: FiledropAppUploadTests.NoLog(), now: { 0 }), qrEncoder: qrEncoder,
                          https: https)
    }

    static func head(_ method: HTTPMethod, _ target: String, host: String? = "192.168.1.5:8080",
                     _ headers: HTTPHeaders = [:], version: HTTPVersion = .http1_1) -> RequestHead {
        var all = HTTPHeaders()
        if let host { all.add(name: "Host", value: host) }
        for (name, value) in headers { all.add(name: name, value: value) }
        return RequestHead(method: method, target: target, version: version, headers: all)
    }

    /// The route's decision alone (blocking work run inline): `.respond` means no body byte is read.
    func decision(_ head: RequestHead, secure: Bool = false) -> RouteDecision {
        app.route(head, context: RequestContext(client: "test", wallClockSeconds: 0, isSecure: secure)).resolvedInline()
    }

    /// The response without reading any body: nil when the route wanted the body.
    func answer(_ head: RequestHead, secure: Bool = false) -> Response? {
        guard case .respond(let response) = decision(head, secure: secure) else { return nil }
        return response
    }

    func send(_ head: RequestHead, body: [UInt8] = [], secure: Bool = false) -> Response {
        RequestDriver.send(app.route(head, context: RequestContext(client: "test", wallClockSeconds: 0, isSecure: secure)),
                           body: body)
    }

    static func text(_ response: Response?) -> String {
        guard case .bytes(let bytes)? = response?.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }
}
