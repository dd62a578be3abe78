import Testing

@testable import FiledropCore
@testable import FiledropHTTP

@Suite struct HTTPHeadParserTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func head(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HeadParseResult {
        ThreeWayFeeding.parseHead(bytes(text), limits: limits)
    }

    private func parsedHead(_ result: HeadParseResult) -> RequestHead? {
        if case .complete(let head, _) = result { return head }
        return nil
    }

    static let fixtures: [(name: String, bytes: [UInt8], method: HTTPMethod, target: String, fields: Int)] = [
        ("curl GET", HTTPFixtures.curlGet, .get, "/files/report%20final.pdf", 3),
        ("curl -F", HTTPFixtures.curlUploadForm, .post, "/upload", 5),
        ("curl -T chunked", HTTPFixtures.curlPutChunked, .put, "/upload/notes.txt", 5),
        ("python GET", HTTPFixtures.pythonGet, .get, "/list?sort=name", 2),
        ("python chunked POST", HTTPFixtures.pythonPostChunked, .post, "/upload/data.bin", 4),
        ("URLSession PUT", HTTPFixtures.urlSessionPut, .put, "/upload/photo.jpg", 8),
        ("Chromium GET", HTTPFixtures.chromiumGet, .get, "/", 7),
        ("Chromium upload", HTTPFixtures.chromiumUpload, .post, "/upload", 10),
        ("Firefox GET", HTTPFixtures.firefoxGet, .get, "/files/", 10),
    ]

    @Test(arguments: fixtures.indices)
    func parsesRealClientHeads(index: Int) throws {
        let fixture = Self.fixtures[index]
        let result = ThreeWayFeeding.parseHead(fixture.bytes)
        guard case .complete(let head, let length) = result else {
            Issue.record("\(fixture.name): \(result)")
            return
        }
        #expect(length == fixture.bytes.count)
        #expect(head.method == fixture.method)
        #expect(head.target == fixture.target)
        #expect(head.version == .http1_1)
        #expect(head.headers.count == fixture.fields)
        #expect(head.headers["host"] != nil)
    }

    @Test func keepsFieldOrderAndTrimsOptionalWhitespace() {
        let head = parsedHead(head("GET / HTTP/1.1\r\nHost: a\r\nX-One:\t  spaced value \t\r\nx-one:2\r\nEmpty:\r\n\r\n"))
        #expect(
            head?.headers
                == HTTPHeaders([
                    (name: "Host", value: "a"), (name: "X-One", value: "spaced value"),
                    (name: "x-one", value: "2"), (name: "Empty", value: ""),
                ]))
        #expect(head?.headers.values(for: "X-ONE") == ["spaced value", "2"])
    }

    @Test func tabInsideValueAndObsTextAreKept() {
        var text = bytes("GET / HTTP/1.1\r\nHost: a\r\nX-Note: a\tb ")
        text += [0xC3, 0xA9, 0xFF]
        text += bytes("\r\n\r\n")
        let head = parsedHead(ThreeWayFeeding.parseHead(text))
        #expect(head?.headers["x-note"] == "a\tb é\u{FFFD}")
    }

    @Test func pipelinedHeadsAreFoundOneAfterTheOther() {
        let first = HTTPFixtures.curlGet
        let second = HTTPFixtures.pythonGet
        let stream = first + second
        var parser = HTTPHeadParser(limits: HTTPLimits())
        guard case .complete(let one, let length) = stream.withUnsafeBytes({ parser.parse($0) }) else {
            Issue.record("first head not complete")
            return
        }
        #expect(one.target == "/files/report%20final.pdf")
        #expect(length == first.count)
        parser.reset()
        let rest = Array(stream[length...])
        guard case .complete(let two, let secondLength) = rest.withUnsafeBytes({ parser.parse($0) }) else {
            Issue.record("second head not complete")
            return
        }
        #expect(two.target == "/list?sort=name")
        #expect(secondLength == second.count)
        // Three ways, the first head's outcome is the same whatever follows it.
        #expect(ThreeWayFeeding.parseHead(stream) == .complete(one, length: first.count))
    }

    @Test func leadingEmptyLinesAreSkippedAndCounted() {
        let result = head("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(
            result == .complete(RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": "a"]), length: 31))
    }

    @Test func incompleteHeadNeedsMore() {
        #expect(head("GET / HTTP/1.1\r\nHost: a\r\n") == .needMore)
        #expect(head("GET / HTTP/1.1\r\nHost: a\r\n\r") == .needMore)
        #expect(head("") == .needMore)
    }

    @Test func failureIsStickyUntilReset() {
        var parser = HTTPHeadParser(limits: HTTPLimits())
        let bad = bytes("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n")
        let first = bad.withUnsafeBytes { parser.parse($0) }
        guard case .failed = first else {
            Issue.record("expected failure, got \(first)")
            return
        }
        #expect(bad.withUnsafeBytes { parser.parse($0) } == first)
        parser.reset()
        let good = HTTPFixtures.curlGet
        #expect(parsedHead(good.withUnsafeBytes { parser.parse($0) })?.target == "/files/report%20final.pdf")
    }

    // MARK: Request line

    @Test(arguments: [
        ("OPTIONS * HTTP/1.1", "*"),
        ("GET http://example.com/a?b HTTP/1.1", "http://example.com/a?b"),
        ("CONNECT example.com:443 HTTP/1.1", "example.com:443"),
        ("GET /%C3%A9t%C3%A9 HTTP/1.1", "/%C3%A9t%C3%A9"),
        ("GET /été.txt HTTP/1.1", "/été.txt"),
        ("get / HTTP/1.1", "/"),
    ])
    func acceptsTargetForms(line: String, target: String) {
        #expect(parsedHead(head(line + "\r\nHost: a\r\n\r\n"))?.target == target)
    }

    @Test(arguments: [
        ("GET", HTTPMethod.get), ("PUT", .put), ("HEAD", .head), ("POST", .post), ("PATCH", .patch),
        ("DELETE", .delete), ("OPTIONS", .options), ("get", .other("get")), ("GETS", .other("GETS")),
        ("PU", .other("PU")), ("OPTIONs", .other("OPTIONs")),
    ])
    func methodsAreRecognizedCaseSensitively(token: String, method: HTTPMethod) {
        #expect(parsedHead(head("\(token) / HTTP/1.1\r\nHost: a\r\n\r\n"))?.method == method)
    }

    @Test func unknownMethodTokenIsKept() {
        #expect(parsedHead(head("PROPFIND / HTTP/1.1\r\nHost: a\r\n\r\n"))?.method == .other("PROPFIND"))
    }

    @Test(arguments: [
        "GET  / HTTP/1.1",  // empty target
        "GET / HTTP/1.1 ",  // trailing space
        " GET / HTTP/1.1",  // leading space: empty method
        "GET /",  // no version
        "GET",  // nothing else
        "G(T / HTTP/1.1",  // method not a token
        "GET * HTTP/1.1",  // asterisk-form is for OPTIONS only
        "GET example.com HTTP/1.1",  // neither a path nor absolute
        "GET /a\u{7F} HTTP/1.1",  // DEL in target
        "GET /a\tb HTTP/1.1",  // HTAB in target
        "GET / http/1.1",  // version is case-sensitive
        "GET / HTTP/1",
        "GET / HTTP/11",
        "GET / HTTP/1.1x",
        "GET / HTTPS/1.1",
        "GET / HTTP/1.10",  // RFC 9112 §2.3: one digit each side of the dot
        "GET / HTTP/01.1",
        "GET /files/a#b HTTP/1.1",  // RFC 9112 §3.2: a fragment is never sent
        "GET /files/a.txt# HTTP/1.1",
        "GET /?q=a#b HTTP/1.1",
        "GET http://127.0.0.1/files/#top HTTP/1.1",
    ])
    func rejectsMalformedRequestLines(line: String) {
        let result = head(line + "\r\nHost: a\r\n\r\n")
        guard case .failed(.malformedRequestLine) = result else {
            Issue.record("\(line.debugDescription): \(result)")
            return
        }
    }

    @Test func rejectsTargetThatIsNotUTF8() {
        let line = bytes("GET /") + [0xC3, 0x28] + bytes(" HTTP/1.1\r\nHost: a\r\n\r\n")
        guard case .failed(.malformedRequestLine) = ThreeWayFeeding.parseHead(line) else {
            Issue.record("invalid UTF-8 target accepted")
            return
        }
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9", "HTTP/0.0"])
    func wellFormedButUnsupportedVersions(version: String) {
        #expect(head("GET / \(version)\r\nHost: a\r\n\r\n") == .failed(.unsupportedVersion))
    }

    /// RFC 9110 §2.5: a higher minor version of HTTP/1 is processed as HTTP/1.1 (so it needs
    /// a Host and is persistent by default, as 1.1 is).
    @Test(arguments: ["HTTP/1.2", "HTTP/1.9"])
    func higherMinorVersionsAreHTTP11(version: String) {
        let parsed = parsedHead(head("GET / \(version)\r\nHost: a\r\n\r\n"))
        #expect(parsed?.version == .http1_1)
        #expect(parsed?.wantsKeepAlive == true)
        guard case .failed(.malformedHeader) = head("GET / \(version)\r\n\r\n") else {
            Issue.record("\(version) without Host accepted")
            return
        }
    }

    @Test func http10NeedsNoHost() {
        let result = head("GET / HTTP/1.0\r\n\r\n")
        #expect(result == .complete(RequestHead(method: .get, target: "/", version: .http1_0, headers: [:]), length: 18))
    }

    // MARK: Host

    @Test func http11WithoutHostIsRejected() {
        #expect(head("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n") == .failed(.malformedHeader("HTTP/1.1 request without Host")))
    }

    @Test(arguments: ["HTTP/1.1", "HTTP/1.0"])
    func twoHostFieldsAreRejected(version: String) {
        #expect(head("GET / \(version)\r\nHost: a\r\nhost: b\r\n\r\n") == .failed(.malformedHeader("more than one Host field")))
    }

    // MARK: Field lines and line endings

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a\r\nX-Long: one\r\n two\r\n\r\n",  // obs-fold
        "GET / HTTP/1.1\r\nHost: a\r\nX-Long: one\r\n\ttwo\r\n\r\n",  // obs-fold with HTAB
        "GET / HTTP/1.1\r\n Host: a\r\n\r\n",  // whitespace before first field
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",  // space before colon
        "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n",  // tab before colon
        "GET / HTTP/1.1\r\nHost: a\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n: empty name\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX(y): z\r\n\r\n",  // name not a token
        "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{01}b\r\n\r\n",  // CTL in value
        "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}b\r\n\r\n",  // DEL in value
        "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",  // bare CR in value
        "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n",  // bare LF ending a field
        "GET / HTTP/1.1\r\nHost: a\r\n\n",  // bare LF ending the head
    ])
    func rejectsMalformedFieldLines(text: String) {
        guard case .failed(.malformedHeader) = head(text) else {
            Issue.record("\(text.debugDescription) accepted: \(head(text))")
            return
        }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\nHost: a\r\n\r\n",  // bare LF after the request line
        "GET / HTTP/1.1\rHost: a\r\n\r\n",  // bare CR after the request line
        "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",  // bare LF as a leading empty line
        "GET /a\rb HTTP/1.1\r\nHost: a\r\n\r\n",
    ])
    func rejectsBareLineEndingsInRequestLine(text: String) {
        guard case .failed(.malformedRequestLine) = head(text) else {
            Issue.record("\(text.debugDescription) accepted: \(head(text))")
            return
        }
    }

    @Test(arguments: [
        "GET /a\u{0}b HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET\u{0}/ HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX\u{0}: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\u{0}\r\n\r\n",
    ])
    func rejectsNULAnywhere(text: String) {
        guard case .failed(let error) = head(text) else {
            Issue.record("\(text.debugDescription) accepted")
            return
        }
        #expect(error.status == .badRequest)
    }

    // MARK: Limits, each one byte over

    @Test func targetAtTheLimitPassesAndOneByteOverIsTooLong() {
        var limits = HTTPLimits()
        limits.maxURILength = 32
        let atLimit = "/" + String(repeating: "a", count: 31)
        #expect(parsedHead(head("GET \(atLimit) HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits))?.target == atLimit)
        #expect(head("GET \(atLimit)b HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits) == .failed(.uriTooLong))
    }

    @Test func overLongTargetIsRefusedBeforeTheLineEnds() {
        var limits = HTTPLimits()
        limits.maxURILength = 32
        let partial = "GET /" + String(repeating: "a", count: 32)
        #expect(head(partial, limits: limits) == .failed(.uriTooLong))
        #expect(head(String(partial.dropLast()), limits: limits) == .needMore)
    }

    @Test func headAtTheLimitPassesAndOneByteOverIsTooLarge() {
        let text = "GET / HTTP/1.1\r\nHost: a\r\nX: bcd\r\n\r\n"
        var limits = HTTPLimits()
        limits.maxHeadSize = text.utf8.count
        #expect(parsedHead(head(text, limits: limits))?.headers["x"] == "bcd")
        limits.maxHeadSize -= 1
        #expect(head(text, limits: limits) == .failed(.headTooLarge))
    }

    @Test func headThatNeverEndsIsTooLargeOncePastTheLimit() {
        var limits = HTTPLimits()
        limits.maxHeadSize = 64
        let endless = bytes("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 200))
        #expect(ThreeWayFeeding.parseHead(Array(endless.prefix(64)), limits: limits) == .needMore)
        #expect(ThreeWayFeeding.parseHead(Array(endless.prefix(65)), limits: limits) == .failed(.headTooLarge))
    }

    @Test func fieldCountAtTheLimitPassesAndOneOverIsTooMany() {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 4
        let four = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n"
        #expect(parsedHead(head(four + "\r\n", limits: limits))?.headers.count == 4)
        #expect(head(four + "D: 4\r\n\r\n", limits: limits) == .failed(.tooManyHeaders))
    }
}

/// `RequestHead` splits the target into path and query once; origin-form and absolute-form
/// must split alike.
@Test(
    arguments: [
        ("/a", "/a", nil), ("/a?b=1", "/a", "b=1"), ("/a?", "/a", ""), ("/?x?y", "/", "x?y"), ("/", "/", nil),
        ("/é?ü", "/é", "ü"), ("http://h/p?q", "/p", "q"), ("http://h?q", "/", "q"), ("http://h", "/", nil),
        ("*", "*", nil),
    ] as [(String, String, String?)])
func requestHeadSplitsPathAndQuery(target: String, path: String, query: String?) {
    let head = RequestHead(method: .get, target: target, version: .http1_1, headers: ["Host": "a"])
    #expect(head.path == path)
    #expect(head.query.map(String.init) == query)
}
