import Testing

@testable import FiledropCore
@testable import FiledropHTTP

@Test func headerLookupIgnoresCase() {
    let headers: HTTPHeaders = ["Content-Type": "text/plain", "connection": "Keep-Alive, Upgrade"]
    #expect(headers["content-type"] == "text/plain")
    #expect(headers.tokens(for: "Connection") == ["keep-alive", "upgrade"])
    #expect(headers["missing"] == nil)
}

/// The word-at-a-time lowering must agree with `lowerASCII` for every byte in every position.
@Test func fieldNameKeyLowersEveryByteLikeTheByteLoop() {
    for byte in 0...255 {
        for position in 0..<8 {
            var bytes = [UInt8](repeating: UInt8(ascii: "Q"), count: 8)
            bytes[position] = UInt8(byte)
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let expected = bytes.map(lowerASCII).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(HTTPFieldName.Key.lowercased(word) == expected, "byte \(byte) at \(position)")
        }
    }
}

@Test(arguments: [
    ("host", "HOST", true), ("host", "hosts", false), ("range", "Range", true),
    ("content-length", "Content-Length", true), ("content-length", "content-lengtH", true),
    ("content-length", "content_length", false),
    // Longer than 16 bytes: the key holds the ends only, the middle is compared in full.
    ("if-unmodified-since", "IF-UNMODIFIED-SINCE", true), ("if-unmodified-since", "if-unmodifiex-since", false),
    ("abcdefgh-1234-ijklmnop", "ABCDEFGH-5678-IJKLMNOP", false), ("", "", true), ("a", "", false),
])
func lookupComparesNamesIgnoringCaseOnly(stored: String, asked: String, found: Bool) {
    // Built in code (no keys) and parsed (keys made from the bytes): the same answers.
    var built = [HTTPHeaders([(name: stored, value: "v")])]
    if !stored.isEmpty {
        var parser = HTTPHeadParser(limits: HTTPLimits())
        let result = Array("GET / HTTP/1.0\r\n\(stored): v\r\n\r\n".utf8).withUnsafeBytes { parser.parse($0) }
        guard case .complete(let head, _) = result else {
            Issue.record("not parsed: \(result)")
            return
        }
        built.append(head.headers)
    }
    for headers in built {
        #expect((headers[asked] != nil) == found)
        #expect(headers.contains(HTTPFieldName(asked)) == found)
        #expect(headers[HTTPFieldName(asked)] != nil || !found)
        #expect(headers.contains(asked) == found)
        #expect(headers.values(for: asked).count == (found ? 1 : 0))
        #expect(headers.values(for: HTTPFieldName(asked)).count == (found ? 1 : 0))
    }
}

@Test func wellKnownNamesFindFieldsInAnyCase() {
    let headers: HTTPHeaders = ["HOST": "a", "Transfer-ENCODING": "chunked", "Content-Security-Policy": "x"]
    #expect(headers[.host] == "a")
    #expect(headers[.transferEncoding] == "chunked")
    #expect(headers[.contentSecurityPolicy] == "x")
    #expect(headers[.contentLength] == nil)
}

@Test(arguments: [
    ("close", true), ("Keep-Alive, CLOSE", true), (" close ,x", true), (",,close", true),
    ("closed", false), ("clo se", false), ("", false), ("keep-alive", false), ("close\t", true),
])
func containsTokenAgreesWithTokens(value: String, hasClose: Bool) {
    let headers: HTTPHeaders = ["Connection": value]
    #expect(headers.containsToken("close", in: .connection) == hasClose)
    #expect(headers.tokens(for: "connection").contains("close") == hasClose)
}

@Test func removeAndReplaceUseTheSameNameRules() {
    var headers: HTTPHeaders = ["Vary": "a", "Host": "h", "VARY": "b"]
    headers.replaceOrAdd(name: "vary", value: "c")
    #expect(headers == HTTPHeaders([(name: "Host", value: "h"), (name: "vary", value: "c")]))
    headers.remove(name: "HOST")
    #expect(Array(headers).map(\.name) == ["vary"])
}

@Test func fieldsAddedByPreparedNameAreSentAsWrittenAndFound() {
    var headers = HTTPHeaders()
    headers.add(.contentType, "text/plain")
    headers.add(name: "etag", value: "\"1\"")
    #expect(Array(headers).map(\.name) == ["Content-Type", "etag"])
    #expect(headers["content-type"] == "text/plain")
    #expect(headers[.contentType] == "text/plain")
    #expect(headers[.etag] == "\"1\"")
    #expect(headers == HTTPHeaders([(name: "Content-Type", value: "text/plain"), (name: "etag", value: "\"1\"")]))
}
