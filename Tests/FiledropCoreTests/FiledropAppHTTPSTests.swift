import Synchronization
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// What the page learns about HTTPS (`/config.json`, the QR code), the connection telling the
/// app a request came over TLS, and that with HTTPS off nothing changes.
@Suite struct FiledropAppHTTPSTests {
    typealias Fixture = HTTPSFixture

    /// Remembers the texts it was asked to encode.
    final class RecordingQREncoder: QRCodeEncoder {
        let texts = Mutex<[String]>([])
        func encode(_ text: String) -> QRCode? {
            texts.withLock { $0.append(text) }
            return QRCode(size: 1, modules: [true])
        }
    }

    @Test func overHTTPSTheConfigurationCarriesTheFingerprint() {
        let text = Fixture.text(Fixture().answer(Fixture.head(.get, "/config.json", host: "192.168.1.5:8443"), secure: true))
        #expect(
            text.contains(
                ",\"https\":{\"secure\":true,\"port\":8443,\"url\":\"https://192.168.1.5:8443/\","
                    + "\"localCA\":true,\"fingerprint\":\"\(Fixture.anchor.fingerprintSHA256)\"}}"))
    }

    @Test func overPlainHTTPInServeModeThePageLearnsWhereHTTPSIs() {
        let text = Fixture.text(Fixture(mode: .serve).answer(Fixture.head(.get, "/config.json", host: "[::1]:8080")))
        #expect(text.contains("\"https\":{\"secure\":false,\"port\":8443,\"url\":\"https://[::1]:8443/\""))
    }

    @Test func withTheOperatorsCertificateThereIsNoFingerprint() {
        let text = Fixture.text(Fixture(authority: nil).answer(Fixture.head(.get, "/config.json"), secure: true))
        #expect(text.contains("\"localCA\":false,\"fingerprint\":null}"))
    }

    @Test func withHTTPSOffTheConfigurationIsAsBefore() {
        let (app, _) = FiledropAppUploadTests.makeApp()
        let text = FiledropAppUploadTests.bodyText(
            FiledropAppUploadTests.send(app, FiledropAppUploadTests.head(.get, "/config.json")))
        #expect(
            text == "{\"title\":\"filedrop\",\"maxUploadSize\":null,\"readOnly\":false,\"tus\":false,\"access\":\"open\","
                + "\"allowDelete\":false,\"allowRename\":false,\"phoneURL\":\"http://localhost/\",\"lanURLs\":[],\"loopbackOnly\":false}\n"
        )
    }

    @Test(arguments: [(true, "192.168.1.5:8443"), (false, "192.168.1.5:8080")])
    func theQRCodeOpensThePageOverHTTPS(secure: Bool, host: String) {
        let encoder = RecordingQREncoder()
        let response = Fixture(mode: .serve, qrEncoder: encoder).answer(Fixture.head(.get, "/qr.svg", host: host), secure: secure)
        #expect(response?.status == .ok)
        #expect(encoder.texts.withLock { $0 } == ["https://192.168.1.5:8443/"])
    }

    @Test func withHTTPSOffTheQRCodeIsThePlainAddress() {
        let encoder = RecordingQREncoder()
        let app = InMemoryServer(qrEncoder: encoder).app
        _ = FiledropAppUploadTests.send(app, Fixture.head(.get, "/qr.svg", host: "192.168.1.5:8080"))
        #expect(encoder.texts.withLock { $0 } == ["http://192.168.1.5:8080/"])
    }

    @Test func withHTTPSOffPlainHTTPIsNeverRedirected() {
        let (app, storage) = FiledropAppUploadTests.makeApp()
        let page = FiledropAppUploadTests.send(app, Fixture.head(.get, "/files/", host: "192.168.1.5:8080"))
        #expect(page.status == .ok)
        let upload = FiledropAppUploadTests.send(app, Fixture.head(.put, "/files/a.txt", ["Content-Length": "1"]), body: [0x61])
        #expect(upload.status == .created)
        #expect(storage.files.count == 1)
    }

    @Test func theTrustRoutesArePublicInPrivateModeOnlyWithHTTPS() {
        let withHTTPS = AccessPolicy(mode: .private, hasPassword: true, publishesTrustRoutes: true)
        for path in ["/ca.crt", "/ca.mobileconfig", "/trust", "/style.css"] {
            #expect(withHTTPS.requirement(parsing: .get, path) == .anyone)
            #expect(AccessPolicy(mode: .private, hasPassword: true).requirement(parsing: .get, path) == .password)
        }
        #expect(withHTTPS.requirement(parsing: .get, "/") == .password)
        #expect(withHTTPS.requirement(parsing: .get, "/app.js") == .password)
        var configuration = Configuration()
        configuration.tls = .auto
        #expect(AccessControl(configuration: configuration, now: { 0 }).policy.publishesTrustRoutes)
    }

    /// A responder that answers with what it was told about the connection.
    final class ContextEcho: HTTPResponder {
        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            .respond(Response(status: .ok, body: .bytes(Array("secure=\(context.isSecure)".utf8))))
        }
    }

    @Test(arguments: [false, true])
    func theConnectionTellsTheAppWhetherItIsSecure(secure: Bool) {
        var driver = ConnectionDriver(
            responder: ContextEcho(), context: RequestContext(client: "test", wallClockSeconds: 0, isSecure: secure))
        driver.receive("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        guard let response = driver.responses.first, case .bytes(let bytes) = response.body else {
            Issue.record("expected a response, got \(driver.sent)")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "secure=\(secure)")
    }
}
