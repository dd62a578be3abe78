import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The plain-HTTP port while HTTPS is on: redirects for reading, refusals for anything that
/// would send a password or a file, the trust routes served as usual.
@Suite struct PlainHTTPGateTests {
    typealias Fixture = HTTPSFixture

    @Test(arguments: [
        ("192.168.1.5:8080", "/", "https://192.168.1.5:8443/"),
        ("192.168.1.5", "/files/a%20b.txt?download", "https://192.168.1.5:8443/files/a%20b.txt?download"),
        ("[fe80::1]:8080", "/files/?format=json&sort=size", "https://[fe80::1]:8443/files/?format=json&sort=size"),
        ("[::1]", "/index.html", "https://[::1]:8443/index.html"),
        ("localhost:8080", "/app.js", "https://localhost:8443/app.js"),
    ])
    func readingIsRedirectedToTheSameResourceOverHTTPS(host: String, target: String, location: String) {
        let response = Fixture().answer(Fixture.head(.get, target, host: host))
        #expect(response?.status == .permanentRedirect)
        #expect(response?.headers["Location"] == location)
        #expect(response?.headers["Cache-Control"] == "no-store")
        #expect(Fixture.text(response).contains(location))
    }

    @Test func headKeepsItsMethodAndPort443IsLeftOut() {
        let response = Fixture(port: 443).answer(Fixture.head(.head, "/?a=1", host: "192.168.1.5:80"))
        #expect(response?.status.code == 308)
        #expect(response?.headers["Location"] == "https://192.168.1.5/?a=1")
    }

    @Test func anAbsoluteFormTargetNamesTheHost() {
        let head = Fixture.head(.get, "http://10.0.0.2:8080/files/?x", host: "ignored.example")
        #expect(Fixture().answer(head)?.headers["Location"] == "https://10.0.0.2:8443/files/?x")
    }

    @Test func aForeignHostIsRefusedBeforeAnyRedirect() {
        let response = Fixture().answer(Fixture.head(.get, "/", host: "evil.example"))
        #expect(response?.status == .misdirectedRequest)
        #expect(response?.headers["Location"] == nil)
    }

    @Test func noHostIsABadRequestNotARedirect() {
        let response = Fixture().answer(Fixture.head(.get, "/", host: nil, version: .http1_0))
        #expect(response?.status == .badRequest)
        #expect(Fixture.text(response).contains("8443"))
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .delete, .options])
    func everyMethodButGetAndHeadIsRefusedBeforeItsBody(method: HTTPMethod) {
        let fixture = Fixture()
        let head = Fixture.head(method, "/files/a.txt", host: "192.168.1.5:8080", ["Content-Length": "5"])
        let response = fixture.answer(head)
        #expect(response?.status == .forbidden)
        #expect(Fixture.text(response).contains("https://192.168.1.5:8443/files/a.txt"))
        #expect(fixture.storage.files.isEmpty)
        #expect(fixture.storage.pendingUploads == 0)
    }

    @Test func uploadsAreRefusedInTheClientsFormat() {
        let fixture = Fixture()
        let page = fixture.answer(
            Fixture.head(
                .post, "/upload.html",
                [
                    "Content-Type": "multipart/form-data; boundary=x", "Content-Length": "100", "Accept": "text/html",
                ]))
        #expect(page?.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(
            Fixture.text(page).contains(
                "This server takes uploads and passwords only over HTTPS, so nobody on the network can read them: "
                    + "https://192.168.1.5:8443/upload.html"))
        let reply = fixture.answer(
            Fixture.head(
                .post, "/upload",
                [
                    "Content-Type": "multipart/form-data; boundary=x", "Content-Length": "100", "Accept": "application/json",
                ]))
        #expect(reply?.headers["Content-Type"] == "application/json")
        #expect(Fixture.text(reply).contains("\"status\":403"))
        let curl = fixture.answer(Fixture.head(.put, "/files/x.bin", ["Content-Length": "3", "Expect": "100-continue"]))
        #expect(Fixture.text(curl).hasPrefix("403 Forbidden: This server takes uploads"))
    }

    @Test func tusCreationIsRefused() {
        let head = Fixture.head(.post, "/files/", ["Tus-Resumable": "1.0.0", "Upload-Length": "10"])
        #expect(Fixture().answer(head)?.status == .forbidden)
    }

    @Test(arguments: ["/", "/files/", "/files/a.txt", "/ca.crt", "/trust"])
    func aPasswordIsRefusedEvenOnAGet(target: String) {
        let head = Fixture.head(.get, target, ["Authorization": AccessControlTests.good])
        let response = Fixture().answer(head)
        #expect(response?.status == .forbidden)
        #expect(response?.headers["WWW-Authenticate"] == nil)
        #expect(Fixture.text(response).contains("only over HTTPS"))
    }

    @Test(arguments: [("Content-Length", "4"), ("Transfer-Encoding", "chunked")])
    func aGetWithABodyIsRefused(name: String, value: String) {
        var headers = HTTPHeaders()
        headers.add(name: name, value: value)
        #expect(Fixture().answer(Fixture.head(.get, "/", headers))?.status == .forbidden)
    }

    @Test func anEmptyBodyIsNoBody() {
        #expect(Fixture().answer(Fixture.head(.get, "/", ["Content-Length": "0"]))?.status == .permanentRedirect)
    }

    @Test(arguments: ["/ca.crt", "/ca.mobileconfig", "/trust", "/style.css"])
    func theTrustRoutesAreServedOverPlainHTTP(target: String) {
        let response = Fixture().answer(Fixture.head(.get, target))
        #expect(response?.status != .permanentRedirect)
        #expect(response?.headers["Location"] == nil)
    }

    @Test(arguments: [
        ("/", "https://192.168.1.5:8443/"),
        ("/files/?sort=size", "https://192.168.1.5:8443/files/?sort=size"),
        ("/trust", "https://192.168.1.5:8443/"),
    ])
    func aBrowsersFirstVisitIsTheTrustPageWithALinkOn(target: String, secure: String) {
        let response = Fixture().answer(Fixture.head(.get, target, ["Accept": "text/html,*/*;q=0.8"]))
        #expect(response?.status == .ok)
        #expect(response?.headers["Location"] == nil)
        let page = Fixture.text(response)
        #expect(page.contains("<a id=\"continue\" class=\"button primary\" href=\"\(secure)\">"))
        #expect(page.contains(Fixture.anchor.fingerprintSHA256))
        #expect(page.contains("<script src=\"/first-visit.js\" defer></script>"))
        #expect(
            response?.headers["Content-Security-Policy"] == "default-src 'none'; style-src 'self'; img-src 'self' data:; "
                + "script-src 'self'; connect-src https://192.168.1.5:8443; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        )
    }

    @Test func anIPv6HostGetsTheLinkWithoutTheScript() {
        // CSP cannot name an IPv6 literal, and a wider source would allow more than the probe.
        let response = Fixture().answer(Fixture.head(.get, "/", host: "[fe80::1]:8080", ["Accept": "text/html"]))
        #expect(response?.status == .ok)
        #expect(Fixture.text(response).contains("href=\"https://[fe80::1]:8443/\""))
        #expect(!Fixture.text(response).contains("first-visit.js"))
        #expect(response?.headers["Content-Security-Policy"] == SecurityPolicy.trustPage.contentSecurityPolicy)
    }

    @Test func withTheOperatorsCertificateABrowserIsRedirected() {
        let response = Fixture(authority: nil).answer(Fixture.head(.get, "/", ["Accept": "text/html"]))
        #expect(response?.status == .permanentRedirect)
    }

    @Test func overHTTPSNothingIsGated() {
        let fixture = Fixture()
        let response = fixture.send(
            Fixture.head(.put, "/files/a.txt", host: "192.168.1.5:8443", ["Content-Length": "3"]),
            body: Array("abc".utf8), secure: true)
        #expect(response.status == .created)
        #expect(fixture.storage.files[StoragePath(checkedComponents: ["a.txt"])] == Array("abc".utf8))
        #expect(fixture.answer(Fixture.head(.get, "/config.json", host: "192.168.1.5:8443"), secure: true)?.status == .ok)
    }

    @Test func serveModeServesEverythingOverPlainHTTP() {
        let fixture = Fixture(mode: .serve)
        let response = fixture.send(Fixture.head(.put, "/files/a.txt", ["Content-Length": "3"]), body: Array("abc".utf8))
        #expect(response.status == .created)
        #expect(fixture.answer(Fixture.head(.get, "/config.json"))?.status == .ok)
    }

    @Test func theRedirectComesBeforeThePasswordPrompt() {
        let fixture = Fixture {
            $0.access = .private
            $0.passwordHash = "$y$fake"
        }
        let page = fixture.answer(Fixture.head(.get, "/"))
        #expect(page?.status == .permanentRedirect)
        #expect(fixture.answer(Fixture.head(.get, "/trust"))?.status == .ok)
        #expect(fixture.answer(Fixture.head(.get, "/ca.crt"))?.status == .ok)
        // Over HTTPS the password is asked for as usual, but not for the trust routes.
        #expect(fixture.answer(Fixture.head(.get, "/"), secure: true)?.status == .unauthorized)
        #expect(fixture.answer(Fixture.head(.get, "/trust"), secure: true)?.status == .ok)
    }

    /// On a real connection: the refusal goes out instead of `100 Continue`, and the
    /// connection closes rather than read the upload.
    @Test func theRefusalClosesTheConnectionWithoutReadingTheBody() {
        let driver = Fixture().server.exchange(
            "PUT /files/a.txt HTTP/1.1\r\nHost: 192.168.1.5:8080\r\nContent-Length: 5\r\n"
                + "Expect: 100-continue\r\n\r\n")
        guard driver.sent.count == 1, let response = driver.responses.first else {
            Issue.record("expected the refusal alone, got \(driver.sent)")
            return
        }
        let head = String(decoding: response.head, as: UTF8.self)
        #expect(response.status == .forbidden)
        #expect(head.contains("\r\nConnection: close\r\n"))
        guard driver.closed else {
            Issue.record("the connection stays open after the refusal")
            return
        }
        #expect(driver.machine.wantsLinger)
    }
}
