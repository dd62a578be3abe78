import FiledropHTTP

@testable import FiledropCore
@testable import FiledropTesting

/// An app with HTTPS on, in memory: requests marked as arriving over the plain port or the
/// HTTPS one, with any Host, as the I/O layer would mark them.
struct HTTPSFixture {
    /// A made-up CA: the bytes need not be a real certificate for the routes to serve them.
    static let anchor = TrustAnchor(
        certificateDER: [0x30, 0x82, 0x01, 0x0A] + (0..<250).map { UInt8(truncatingIfNeeded: $0 &* 37) },
        fingerprintSHA256: "3F:A1:07:C2:9B:5D:E4:18:6A:F0:23:8C:D9:41:B7:5E:02:CC:9A:6F:13:E8:B4:70:5D:2A:F9:C6:81:3E:47:DB",
        commonName: "filedrop CA on laptop")

    let server: InMemoryServer
    var app: FiledropApp { server.app }
    var storage: InMemoryStorage { server.storage }

    init(
        mode: PlainHTTPMode = .redirect, authority: TrustAnchor? = anchor, port: UInt16 = 8443,
        qrEncoder: (any QRCodeEncoder)? = nil, _ configure: (inout Configuration) -> Void = { _ in }
    ) {
        var configuration = Configuration()
        configuration.tls = authority == nil ? .files : .auto
        configuration.httpMode = mode
        configure(&configuration)
        let https = HTTPSPresentation(port: port, plainHTTPMode: mode, authority: authority)
        // The web root's catalogues: the trust page and the refusals are written from them.
        server = InMemoryServer(
            configuration: configuration, qrEncoder: qrEncoder, https: https,
            languages: PageLanguages(reading: CatalogueFilesTests.read))
    }

    static func head(
        _ method: HTTPMethod, _ target: String, host: String? = "192.168.1.5:8080",
        _ headers: HTTPHeaders = [:], version: HTTPVersion = .http1_1
    ) -> RequestHead {
        InMemoryServer.head(method, target, host: host, headers, version: version)
    }

    static func context(secure: Bool) -> RequestContext {
        RequestContext(client: "test", wallClockSeconds: 0, isSecure: secure)
    }

    /// The route's decision alone (blocking work run inline): `.respond` means no body byte is read.
    func decision(_ head: RequestHead, secure: Bool = false) -> RouteDecision {
        server.decision(head, context: Self.context(secure: secure))
    }

    /// The response without reading any body: nil when the route wanted the body.
    func answer(_ head: RequestHead, secure: Bool = false) -> Response? {
        server.answer(head, context: Self.context(secure: secure))
    }

    func send(_ head: RequestHead, body: [UInt8] = [], secure: Bool = false) -> Response {
        server.send(head, body: body, context: Self.context(secure: secure))
    }

    static func text(_ response: Response?) -> String {
        InMemoryServer.text(response)
    }
}
