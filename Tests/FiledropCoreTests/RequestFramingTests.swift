import Testing

@testable import FiledropCore
@testable import FiledropHTTP

@Suite struct RequestFramingTests {
    private func framing(
        _ fields: [(String, String)], version: HTTPVersion = .http1_1
    ) -> Result<(BodyFraming, Bool), HTTPError> {
        let head = RequestHead(
            method: .post, target: "/upload", version: version,
            headers: HTTPHeaders([(name: "Host", value: "a")] + fields.map { (name: $0.0, value: $0.1) })
        )
        return Result { () throws(HTTPError) in
            let result = try BodyFraming.of(head)
            return (result.framing, result.closeAfterResponse)
        }
    }

    private func expectFraming(
        _ fields: [(String, String)], _ expected: BodyFraming, closes: Bool = false,
        version: HTTPVersion = .http1_1, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch framing(fields, version: version) {
        case .success(let (framing, closeAfterResponse)):
            #expect(framing == expected, sourceLocation: sourceLocation)
            #expect(closeAfterResponse == closes, sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("\(fields) failed: \(error)", sourceLocation: sourceLocation)
        }
    }

    private func expectError(
        _ fields: [(String, String)], _ expected: HTTPError,
        version: HTTPVersion = .http1_1, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch framing(fields, version: version) {
        case .success(let result): Issue.record("\(fields) gave \(result)", sourceLocation: sourceLocation)
        case .failure(let error): #expect(error == expected, sourceLocation: sourceLocation)
        }
    }

    @Test func noLengthAndNoTransferEncodingMeansNoBody() {
        expectFraming([], .none)
        expectFraming([], .none, version: .http1_0)
    }

    @Test func contentLengthGivesALength() {
        expectFraming([("Content-Length", "0")], .length(0))
        expectFraming([("content-length", "199")], .length(199))
        expectFraming([("Content-Length", "00042")], .length(42))
        expectFraming([("Content-Length", "18446744073709551615")], .length(.max))
        expectFraming([("Content-Length", "10")], .length(10), version: .http1_0)
    }

    @Test(arguments: [
        "", "+5", "-5", "5 0", "0x10", "5,5", "5, 5", "1e3", "½", "18446744073709551616",
        "99999999999999999999999",
    ])
    func rejectsInvalidContentLength(value: String) {
        expectError([("Content-Length", value)], .invalidContentLength)
    }

    @Test func rejectsAnyRepeatedContentLength() {
        expectError([("Content-Length", "5"), ("Content-Length", "5")], .invalidContentLength)
        expectError([("Content-Length", "5"), ("content-length", "6")], .invalidContentLength)
    }

    @Test(arguments: ["chunked", "Chunked", "CHUNKED", " chunked ", ", chunked", "chunked,"])
    func chunkedAloneIsChunked(value: String) {
        expectFraming([("Transfer-Encoding", value)], .chunked)
    }

    @Test func transferEncodingWinsOverContentLengthButClosesTheConnection() {
        expectFraming([("Content-Length", "5"), ("Transfer-Encoding", "chunked")], .chunked, closes: true)
        expectFraming([("Transfer-Encoding", "chunked"), ("Content-Length", "nonsense")], .chunked, closes: true)
    }

    @Test func codingsBeforeChunkedAreNotImplemented() {
        expectError([("Transfer-Encoding", "gzip, chunked")], .unsupportedTransferCoding("gzip"))
        expectError([("Transfer-Encoding", "deflate"), ("Transfer-Encoding", "chunked")], .unsupportedTransferCoding("deflate"))
    }

    @Test func chunkedNotFinalOrTwiceIsBadRequest() {
        expectError([("Transfer-Encoding", "gzip")], .conflictingFraming("chunked is not the final transfer coding"))
        expectError([("Transfer-Encoding", "chunked, gzip")], .conflictingFraming("chunked is not the final transfer coding"))
        expectError([("Transfer-Encoding", "chunked;q=1")], .conflictingFraming("chunked is not the final transfer coding"))
        expectError([("Transfer-Encoding", "chunked, chunked")], .conflictingFraming("chunked applied more than once"))
        expectError(
            [("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")],
            .conflictingFraming("chunked applied more than once"))
        #expect(HTTPError.conflictingFraming("").status == .badRequest)
    }

    @Test func emptyTransferEncodingIsMalformed() {
        expectError([("Transfer-Encoding", "")], .malformedHeader("empty Transfer-Encoding"))
        expectError([("Transfer-Encoding", " , ")], .malformedHeader("empty Transfer-Encoding"))
    }

    @Test func transferEncodingInHTTP10IsFaultyFraming() {
        expectError(
            [("Transfer-Encoding", "chunked")], .conflictingFraming("Transfer-Encoding in an HTTP/1.0 request"),
            version: .http1_0)
    }

    @Test func capturedClientHeadsFrameAsExpected() throws {
        let cases: [([UInt8], BodyFraming)] = [
            (HTTPFixtures.curlGet, .none),
            (HTTPFixtures.curlUploadForm, .length(199)),
            (HTTPFixtures.curlPutChunked, .chunked),
            (HTTPFixtures.pythonPostChunked, .chunked),
            (HTTPFixtures.urlSessionPut, .length(10)),
            (HTTPFixtures.chromiumUpload, .length(48213)),
        ]
        for (bytes, expected) in cases {
            var parser = HTTPHeadParser(limits: HTTPLimits())
            guard case .complete(let head, _) = bytes.withUnsafeBytes({ parser.parse($0) }) else {
                Issue.record("fixture did not parse")
                continue
            }
            let result = try BodyFraming.of(head)
            #expect(result.framing == expected)
            #expect(!result.closeAfterResponse)
        }
    }
}
