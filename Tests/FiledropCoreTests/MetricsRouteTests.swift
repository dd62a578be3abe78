import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// `/metrics` through the app and the connection state machine, in memory: who may read it
/// (`metrics-access`), and the kind and refusal each request is counted with.
@Suite struct MetricsRouteTests {
    static let loopback = RequestContext(client: "127.0.0.1", wallClockSeconds: 0)
    static let lan = RequestContext(client: "192.168.1.20", wallClockSeconds: 0)

    static func server(_ configure: (inout Configuration) -> Void = { _ in }) -> InMemoryServer {
        var configuration = Configuration()
        configuration.passwordHash = "$y$fake"
        configure(&configuration)
        let access = AccessControl(configuration: configuration, verifier: FakeVerifier(), now: { 0 })
        return InMemoryServer(configuration: configuration, access: access)
    }

    static func status(_ server: InMemoryServer, _ context: RequestContext, _ headers: HTTPHeaders = [:]) -> Int? {
        server.answer(InMemoryServer.head(.get, "/metrics", headers), context: context)?.status.code
    }

    @Test func loopbackIsTheDefaultAndRefusesOtherPeers() {
        let server = Self.server()
        #expect(Configuration().metricsAccess == .loopback)
        #expect(Self.status(server, Self.loopback) == 200)
        #expect(Self.status(server, RequestContext(client: "::1", wallClockSeconds: 0)) == 200)
        #expect(Self.status(server, Self.lan) == 403)
    }

    /// metrics-access decides alone: loopback needs no password even in private mode, and
    /// open serves anyone, in any mode.
    @Test(arguments: AccessMode.allCases)
    func metricsAccessIsIndependentOfTheAccessMode(mode: AccessMode) {
        let loopback = Self.server { $0.access = mode }
        #expect(Self.status(loopback, Self.loopback) == 200)
        let open = Self.server {
            $0.access = mode
            $0.metricsAccess = .open
        }
        #expect(Self.status(open, Self.lan) == 200)
        let off = Self.server {
            $0.access = mode
            $0.metricsAccess = .off
        }
        #expect(Self.status(off, Self.loopback) == 404)
        let password = Self.server {
            $0.access = mode
            $0.metricsAccess = .password
        }
        #expect(Self.status(password, Self.loopback) == 401)
        #expect(Self.status(password, Self.lan, [.authorization: AccessControlTests.bad]) == 401)
        #expect(Self.status(password, Self.lan, [.authorization: AccessControlTests.good]) == 200)
    }

    /// With HTTPS on, the plain port serves /metrics to a scraper without the CA, but never
    /// takes its password in the clear.
    @Test func plainPortServesMetricsButNotItsPassword() {
        let loopback = HTTPSFixture()
        #expect(loopback.server.answer(HTTPSFixture.head(.get, "/metrics"), context: Self.loopback)?.status.code == 200)
        #expect(loopback.server.answer(HTTPSFixture.head(.get, "/"), context: Self.loopback)?.status.code == 308)
        let password = HTTPSFixture {
            $0.metricsAccess = .password
            $0.passwordHash = "$y$fake"
        }
        let sent = password.server.answer(
            HTTPSFixture.head(.get, "/metrics", [.authorization: AccessControlTests.good]),
            context: Self.loopback)
        #expect(sent?.status.code == 403)
    }

    @Test func pageIsPrometheusText() throws {
        let server = Self.server()
        let response = try #require(server.answer(InMemoryServer.head(.get, "/metrics"), context: Self.loopback))
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(InMemoryServer.text(response).contains("# TYPE filedrop_uploads_total counter\n"))
        #expect(server.answer(InMemoryServer.head(.post, "/metrics"), context: Self.loopback)?.status.code == 405)
    }

    /// The kind is the route's (never the path), and the refusal the `HTTPError`'s.
    @Test(arguments: [
        ("GET /config.json HTTP/1.1", RequestKind.page, nil as RefusalReason?, false),
        ("GET /qr.svg HTTP/1.1", .page, .notFound, false),
        ("GET /files/ HTTP/1.1", .listing, nil, false),
        ("GET /files/.hidden.txt HTTP/1.1", .download, .badRequest, false),
        ("PUT /files/a.txt HTTP/1.1\r\nContent-Length: 2000", .putUpload, .tooLarge, false),
        ("PUT /files/a.txt HTTP/1.1\r\nContent-Length: 2", .putUpload, nil, true),
        ("POST /upload?name=a.txt HTTP/1.1\r\nContent-Length: 2", .putUpload, nil, true),
        ("POST /upload HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 2", .formUpload, .unsupportedMediaType, false),
        (
            "POST /upload HTTP/1.1\r\nContent-Length: 2\r\nContent-Type: multipart/form-data; boundary=x\r\nOrigin: http://evil.example",
            .formUpload, .forbiddenOrigin, false
        ),
        ("DELETE /files/a.txt HTTP/1.1", .delete, .unauthorized, false),
        ("MOVE /files/a.txt HTTP/1.1\r\nDestination: /files/b.txt", .fileOperation, .unauthorized, false),
        ("MKCOL /files/new/ HTTP/1.1", .fileOperation, nil, false),
        ("GET /metrics HTTP/1.1", .metrics, nil, false),
        ("BREW /metrics HTTP/1.1", .other, .notImplemented, false),
    ])
    func requestsAreCountedWithTheirKindAndRefusal(request: String, kind: RequestKind, refusal: RefusalReason?, readBody: Bool)
        throws
    {
        let server = Self.server { $0.maxUploadSize = 1000 }
        var driver = ConnectionDriver(responder: server.app, context: Self.loopback)
        driver.receive(request + "\r\nHost: localhost\r\n\r\n" + (readBody ? "hi" : ""))
        let answered = try #require(driver.answered.first)
        #expect(RequestKind(label: answered.label) == kind)
        #expect(answered.refusal.flatMap(RefusalReason.init(label:)) == refusal, "\(driver.sent)")
        #expect(answered.readBody == readBody)
    }

    /// A head that never parses is still counted, as `other` with its reason.
    @Test func malformedRequestIsOtherAndMalformed() throws {
        var driver = ConnectionDriver(responder: Self.server().app, context: Self.loopback)
        driver.receive("GET / HTTP/1.1\r\nBad header\r\n\r\n")
        let answered = try #require(driver.answered.first)
        #expect(answered.label == .unlabelled)
        #expect(answered.refusal.flatMap(RefusalReason.init(label:)) == .malformedRequest)
    }

    @Test func readOnlyRefusalHasItsOwnReason() {
        #expect(RefusalReason(HTTPError.readOnlyServer) == .readOnly)
        #expect(RefusalReason(HTTPError.forbidden("no")) == .forbidden)
        #expect(RefusalReason(HTTPError.tooManyRequests("slow down", retryAfterSeconds: 1)) == .rateLimited)
        #expect(RefusalReason(StoragePolicy.tooFullToStart) == .noSpace)
        #expect(RefusalReason(status: .ok) == nil)
        #expect(RefusalReason(status: HTTPStatus(code: 418, reason: "I'm a teapot")) == .other)
        for reason in RefusalReason.allCases where reason != .other {
            #expect(Int(reason.code).map { (400...599).contains($0) } == true, "\(reason)")
        }
    }
}
