import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// A parsed head's fields stay bytes (`FieldBytes`) until read: every way of reading them
/// must give what Strings made at parse time gave.
@Suite struct ParsedFieldsTests {
    private func parsed(_ fields: String) throws -> HTTPHeaders {
        let result = ThreeWayFeeding.parseHead(Array("GET / HTTP/1.1\r\nHost: example\r\n\(fields)\r\n".utf8))
        guard case .complete(let head, _) = result else {
            Issue.record("not parsed: \(result)")
            throw HTTPError.malformedHeader("test head")
        }
        return head.headers
    }

    @Test func lookupsIterationAndEqualityMatchHeadersBuiltFromStrings() throws {
        let headers = try parsed(
            "User-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/120\r\n"
                + "Accept-Encoding:   gzip, deflate, br  \r\nX-Empty:\r\nupgrade-insecure-requests: 1\r\n")
        let built = HTTPHeaders([
            ("Host", "example"), ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"),
            ("Accept-Encoding", "gzip, deflate, br"), ("X-Empty", ""), ("upgrade-insecure-requests", "1"),
        ])
        #expect(headers == built)
        #expect(built == headers)
        #expect(headers.map(\.name) == built.map(\.name))
        #expect(headers.map(\.value) == built.map(\.value))
        #expect(headers[.acceptEncoding] == "gzip, deflate, br")
        #expect(headers["user-agent"] == "Mozilla/5.0 (X11; Linux x86_64) Chrome/120")
        #expect(headers["Upgrade-Insecure-Requests"] == "1", "a name over 16 bytes is compared whole")
        #expect(headers["X-Empty"] == "")
        #expect(headers.values(for: .host) == ["example"])
        #expect(headers.containsToken("br", in: .acceptEncoding))
        #expect(headers.withValueBytes(of: .acceptEncoding) { Array($0) } == Array("gzip, deflate, br".utf8))
        #expect(headers.withValueBytes(of: .range) { _ in true } == nil)
    }

    /// The parsed fields point into bytes the headers hold once: changed, copied into a
    /// response and written out, they must still read as the head said.
    @Test func parsedFieldsSurviveChangesAndTheSerializer() throws {
        var headers = try parsed("Accept: text/html\r\nX-One: 1\r\nX-Two: 2\r\n")
        let copy = headers
        headers.remove(HTTPFieldName("X-One"))
        headers.replaceOrAdd(.accept, "*/*")
        headers.add(name: "X-Three", value: "3")
        #expect(headers.map(\.name) == ["Host", "X-Two", "Accept", "X-Three"])
        #expect(headers.map(\.value) == ["example", "2", "*/*", "3"])
        #expect(copy[.accept] == "text/html", "a copy keeps the fields as parsed")
        #expect(copy["x-one"] == "1")
        let (head, _) = ResponseHeadSerializer.serialize(
            Response(status: .ok, headers: headers), version: .http1_1,
            keepAlive: true, date: "Mon, 07 Dec 2026 16:00:00 GMT")
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.contains("\r\nHost: example\r\nX-Two: 2\r\nAccept: */*\r\nX-Three: 3\r\n"))
    }

    @Test func longNamesWithTheSameEndsAreTold() throws {
        // Same length, same first and last eight bytes: the key cannot tell them apart.
        let headers = try parsed("X-Filedrop-AAAA-Trailer: one\r\nX-Filedrop-BBBB-Trailer: two\r\n")
        #expect(headers["x-filedrop-bbbb-trailer"] == "two")
        #expect(headers[HTTPFieldName("X-Filedrop-AAAA-Trailer")] == "one")
        #expect(headers["X-Filedrop-CCCC-Trailer"] == nil)
    }

    @Test func obsTextIsDecodedAsLossyUTF8WhenRead() throws {
        let head = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Name: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8)
        guard case .complete(let parsed, _) = ThreeWayFeeding.parseHead(head) else {
            Issue.record("not parsed")
            return
        }
        #expect(parsed.headers["X-Name"] == "caf\u{FFFD}")
        #expect(parsed.headers.withValueBytes(of: "X-Name") { Array($0) } == Array("caf".utf8) + [0xE9])
    }

    @Test func namesAreSeenByLengthAndFirstByte() throws {
        let headers = try parsed("If-None-Match: \"x\"\r\n")
        #expect(headers.containsName { length, first in length == 13 && first == UInt8(ascii: "i") })
        #expect(!headers.containsName { _, first in first == UInt8(ascii: "r") })
        let built: HTTPHeaders = ["RANGE": "bytes=0-1"]
        #expect(built.containsName { length, first in length == 5 && first == UInt8(ascii: "r") }, "lowercased")
    }

    /// RFC 9110 §5.6.2, spelled out: the masks in `isTokenByte` must say the same for every byte.
    @Test func tokenBytesAreExactlyTheTchars() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in 0...255 {
            #expect(isTokenByte(UInt8(byte)) == tchars.contains(UInt8(byte)), "byte \(byte)")
        }
    }

    @Test(arguments: [
        ("text/html,application/xhtml+xml", "text/html", true),
        ("TEXT/HTML", "text/html", true),
        ("application/xml;q=0.9,*/*;q=0.8", "text/html", false),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaapplication/json", "application/json", true),
        ("application/jso", "application/json", false),
        ("x,Application/JSON", "application/json", true),
        ("", "text/html", false),
        ("text/htm", "text/html", false),
        ("0123456text/html", "text/html", true),
        ("01234567text/html", "text/html", true),
        ("012345678text/htmL", "text/html", true),
    ])
    func byteSearchFindsTheNeedleAnywhereInAnyCase(haystack: String, needle: String, found: Bool) {
        let answer = haystack.withUTF8Bytes { bytes in
            needle == "text/html"
                ? ByteSearch.contains(bytes, caseInsensitive: "text/html")
                : ByteSearch.contains(bytes, caseInsensitive: "application/json")
        }
        #expect(answer == found)
    }

    /// Against the plain definition, on many strings made of the needles' own letters.
    @Test func byteSearchAgreesWithLowercasedContains() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("applicationJSON/jsontexHTML/hml,;=q".utf8)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let haystack = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            let lowered = haystack.lowercased()
            haystack.withUTF8Bytes { bytes in
                #expect(
                    ByteSearch.contains(bytes, caseInsensitive: "application/json") == lowered.contains("application/json"),
                    "\(haystack)")
                #expect(ByteSearch.contains(bytes, caseInsensitive: "text/html") == lowered.contains("text/html"), "\(haystack)")
                #expect(ByteSearch.contains(bytes, caseInsensitive: "json") == lowered.contains("json"), "\(haystack)")
            }
        }
        // Long enough for the needle to turn up: the same check on planted copies.
        for offset in 0..<24 {
            let haystack = String(repeating: "ap", count: offset) + "Application/JSON" + String(repeating: "j", count: offset % 5)
            #expect(haystack.withUTF8Bytes { ByteSearch.contains($0, caseInsensitive: "application/json") })
        }
    }

    /// A head still held keeps its values whatever comes after it on the connection.
    @Test func aHeldHeadKeepsItsFieldsWhileTheConnectionGoesOn() {
        var parser = HTTPHeadParser(limits: HTTPLimits())
        func next(_ value: String) -> RequestHead? {
            parser.reset()
            let bytes = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Value: \(value)\r\n\r\n".utf8)
            guard case .complete(let head, _) = bytes.withUnsafeBytes({ parser.parse($0) }) else { return nil }
            return head
        }
        let held = next("first value, long enough to be on the heap")
        for round in 0..<3 {
            #expect(next("round \(round)")?.headers["X-Value"] == "round \(round)", "reused or not, the new head reads right")
        }
        #expect(held?.headers["X-Value"] == "first value, long enough to be on the heap")
        #expect(held?.headers[.host] == "h")
    }
}
