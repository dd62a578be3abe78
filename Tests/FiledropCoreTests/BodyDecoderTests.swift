import Testing

@testable import FiledropCore
@testable import FiledropHTTP

@Suite struct BodyDecoderTests {
    private typealias Decoded = ThreeWayFeeding.DecodedBody

    private func decode(_ text: String, framing: BodyFraming = .chunked, limits: HTTPLimits = HTTPLimits()) -> Decoded {
        ThreeWayFeeding.decodeBody(Array(text.utf8), framing: framing, limits: limits)
    }

    private func ended(_ payload: String, trailers: HTTPHeaders = [:], consumed: Int) -> Decoded {
        Decoded(payload: Array(payload.utf8), event: .end(trailers: trailers), consumed: consumed)
    }

    private func expectMalformed(
        _ text: String, limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = decode(text, limits: limits)
        guard case .failed(let error) = result.event else {
            Issue.record("\(text.debugDescription) gave \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.status == .badRequest, sourceLocation: sourceLocation)
        #expect(error.closesConnection, sourceLocation: sourceLocation)
    }

    // MARK: No body and Content-Length

    @Test func noBodyEndsAtOnceConsumingNothing() {
        var decoder = BodyDecoder(framing: .none, limits: HTTPLimits())
        let step = [UInt8]("GET / HTTP/1.1".utf8).withUnsafeBytes { decoder.decode($0) }
        #expect(step == BodyDecodeStep(consumed: 0, data: nil, event: .end(trailers: [:])))
        #expect(decoder.isComplete)
        #expect(decoder.payloadBytes == 0)
    }

    @Test func zeroLengthEndsAtOnce() {
        #expect(decode("next request", framing: .length(0)) == ended("", consumed: 0))
    }

    @Test func lengthStopsAtItsLastByteSoPipelinedRequestsSurvive() {
        #expect(decode("helloGET / HTTP/1.1\r\n", framing: .length(5)) == ended("hello", consumed: 5))
    }

    @Test func lengthDeliversDataAndEndInOneStep() {
        var decoder = BodyDecoder(framing: .length(3), limits: HTTPLimits())
        let step = [UInt8]("abcdef".utf8).withUnsafeBytes { decoder.decode($0) }
        #expect(step == BodyDecodeStep(consumed: 3, data: 0..<3, event: .end(trailers: [:])))
    }

    @Test func shortLengthBodyNeedsMore() {
        #expect(decode("abc", framing: .length(10)) == Decoded(payload: Array("abc".utf8), event: .needMore, consumed: 3))
    }

    // MARK: Chunked, real bodies

    @Test func curlChunkedBody() {
        let body = ThreeWayFeeding.decodeBody(HTTPFixtures.curlChunkedBody, framing: .chunked)
        #expect(body == ended("first part\nsecond part\n", consumed: HTTPFixtures.curlChunkedBody.count))
    }

    @Test func pythonChunkedBodyFollowedByAPipelinedRequest() {
        let bytes = HTTPFixtures.pythonChunkedBody + HTTPFixtures.curlGet
        let body = ThreeWayFeeding.decodeBody(bytes, framing: .chunked)
        #expect(body == ended("abcdefghij", consumed: HTTPFixtures.pythonChunkedBody.count))
    }

    @Test func hexSizesInEitherCase() {
        let twentySix = String(repeating: "x", count: 26)
        let text = "1a\r\n\(twentySix)\r\n1A\r\n\(twentySix)\r\n0\r\n\r\n"
        #expect(decode(text) == ended(twentySix + twentySix, consumed: text.utf8.count))
    }

    @Test func sixteenHexDigitsAreAcceptedSeventeenAreNot() {
        #expect(decode("0000000000000003\r\nabc\r\n0\r\n\r\n") == ended("abc", consumed: 28))
        expectMalformed("00000000000000003\r\nabc\r\n0\r\n\r\n")
        // The largest size parses; the body then simply waits for its data.
        #expect(decode("ffffffffffffffff\r\nabc") == Decoded(payload: Array("abc".utf8), event: .needMore, consumed: 21))
    }

    @Test(arguments: [
        "3;name\r\nabc\r\n0\r\n\r\n",
        "3;name=value\r\nabc\r\n0\r\n\r\n",
        "3;a=1;b;c=\"quoted; \\\"text\\\"\"\r\nabc\r\n0\r\n\r\n",
        "3 ; name = value\r\nabc\r\n0\r\n\r\n",
        "3\t;\tname\t=\t\"v\"\r\nabc\r\n0\r\n\r\n",
        "3\r\nabc\r\n0;last=yes\r\n\r\n",
    ])
    func extensionsAreCheckedAndIgnored(text: String) {
        let result = decode(text)
        #expect(result.payload == Array("abc".utf8))
        #expect(result.event == .end(trailers: [:]))
        #expect(result.consumed == text.utf8.count)
    }

    @Test func trailersAreParsedWithTheFieldRules() {
        let text = "3\r\nabc\r\n0\r\nChecksum: sha256=abc \r\nX-Done:yes\r\n\r\n"
        #expect(decode(text) == ended("abc", trailers: ["Checksum": "sha256=abc", "X-Done": "yes"], consumed: text.utf8.count))
    }

    @Test(arguments: [
        "3\r\nabc\r\n0\r\nBad Name: x\r\n\r\n",
        "3\r\nabc\r\n0\r\nX: a\u{1}b\r\n\r\n",
        "3\r\nabc\r\n0\r\n folded\r\n\r\n",
        "3\r\nabc\r\n0\r\nno-colon\r\n\r\n",
    ])
    func malformedTrailerFieldsUseTheHeadRules(text: String) {
        guard case .failed(.malformedHeader) = decode(text).event else {
            Issue.record("\(text.debugDescription) accepted")
            return
        }
    }

    @Test(arguments: [
        "\r\nabc\r\n0\r\n\r\n",  // empty size
        "x\r\nabc\r\n0\r\n\r\n",  // not hex
        "0x3\r\nabc\r\n0\r\n\r\n",  // 0x prefix
        "+3\r\nabc\r\n0\r\n\r\n",  // sign
        "-3\r\nabc\r\n0\r\n\r\n",
        " 3\r\nabc\r\n0\r\n\r\n",  // whitespace before the size
        "3 \r\nabc\r\n0\r\n\r\n",  // whitespace before CRLF
        "3x\r\nabc\r\n0\r\n\r\n",  // trailing junk
        "3;\r\nabc\r\n0\r\n\r\n",  // extension without a name
        "3;=v\r\nabc\r\n0\r\n\r\n",
        "3;n=\r\nabc\r\n0\r\n\r\n",  // extension without a value
        "3;n=\"open\r\nabc\r\n0\r\n\r\n",  // unterminated quote
        "3;n v\r\nabc\r\n0\r\n\r\n",
        "3\nabc\r\n0\r\n\r\n",  // bare LF after the size
        "3\rabc\r\n0\r\n\r\n",  // bare CR after the size
        "3\r\nabcd\r\n0\r\n\r\n",  // data longer than the size
        "3\r\nabc\n0\r\n\r\n",  // bare LF after the data
        "3\r\nabc\r0\r\n\r\n",  // bare CR after the data
        "3\r\nabc0\r\n\r\n",  // no CRLF after the data
        "0\r\n\n",  // bare LF ending the trailer section
        "0\r\n\r\r\n",  // bare CR in the trailer section
        "0\r\nX: a\rb\r\n\r\n",  // bare CR inside a trailer
        "0\r\nX: a\n\r\n",  // bare LF after a trailer
    ])
    func rejectsMalformedChunkedFraming(text: String) {
        expectMalformed(text)
    }

    @Test func failureIsSticky() {
        var decoder = BodyDecoder(framing: .chunked, limits: HTTPLimits())
        let bad = [UInt8]("zz".utf8)
        let first = bad.withUnsafeBytes { decoder.decode($0) }
        #expect(first.event == .failed(.malformedChunk("chunk size missing")))
        #expect(bad.withUnsafeBytes { decoder.decode($0) } == BodyDecodeStep(consumed: 0, data: nil, event: first.event))
        #expect(!decoder.isComplete)
    }

    @Test func endIsStickyAndConsumesNothingMore() {
        var decoder = BodyDecoder(framing: .chunked, limits: HTTPLimits())
        let bytes = [UInt8]("0\r\n\r\nGET".utf8)
        #expect(
            bytes.withUnsafeBytes { decoder.decode($0) } == BodyDecodeStep(consumed: 5, data: nil, event: .end(trailers: [:])))
        #expect(
            bytes.withUnsafeBytes { decoder.decode($0) } == BodyDecodeStep(consumed: 0, data: nil, event: .end(trailers: [:])))
        #expect(decoder.isComplete)
    }

    // MARK: Limits, each one byte over

    @Test func chunkSizeLineAtTheLimitPassesAndOneByteOverFails() {
        var limits = HTTPLimits()
        limits.maxChunkLineSize = 16
        let atLimit = "3;ext=" + String(repeating: "v", count: 10)  // 16 bytes before CRLF
        #expect(decode("\(atLimit)\r\nabc\r\n0\r\n\r\n", limits: limits).payload == Array("abc".utf8))
        #expect(
            decode("\(atLimit)v\r\nabc\r\n0\r\n\r\n", limits: limits).event
                == .failed(.malformedChunk("chunk size line longer than 16 bytes")))
    }

    @Test func trailerSectionAtTheLimitPassesAndOneByteOverFails() {
        var limits = HTTPLimits()
        let trailers = "X-Sum: 12345\r\n\r\n"  // 16 bytes including the final CRLF
        limits.maxTrailerSize = 16
        #expect(decode("0\r\n" + trailers, limits: limits) == ended("", trailers: ["X-Sum": "12345"], consumed: 19))
        limits.maxTrailerSize = 15
        #expect(
            decode("0\r\n" + trailers, limits: limits).event
                == .failed(.malformedChunk("trailer section larger than 15 bytes")))
    }

    @Test func trailerCountAtTheLimitPassesAndOneOverFails() {
        var limits = HTTPLimits()
        limits.maxHeaderCount = 2
        #expect(decode("0\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits).event == .end(trailers: ["A": "1", "B": "2"]))
        #expect(decode("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits).event == .failed(.tooManyHeaders))
    }
}
