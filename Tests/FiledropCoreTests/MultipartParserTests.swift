import Testing

@testable import FiledropCore

@Suite struct MultipartParserTests {
    let boundary = "XyZ-42"

    @Test func twoPartsWithPreambleEpilogueAndFirstDelimiterAtStart() {
        for preamble in ["", "This is the preamble.\r\n", "--XyZ-4 almost\r\n"] {
            let body = bytes(
                preamble + "--XyZ-42\r\nContent-Disposition: form-data; name=\"relativePath\"\r\n\r\nphotos/2024"
                    + "\r\n--XyZ-42\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\nworld"
                    + "\r\n--XyZ-42--\r\nepilogue --XyZ-42 ignored")
            let outcome = feedMultipartThreeWays(body, boundary: boundary)
            #expect(outcome.failure == nil)
            #expect(outcome.sawEnd)
            #expect(outcome.parts.map(\.head.name) == ["relativePath", "file"])
            #expect(outcome.parts.map(\.head.filename) == [nil, "a.txt"])
            #expect(outcome.parts.map(\.text) == ["photos/2024", "hello\r\nworld"])
            #expect(outcome.parts[1].head.contentType == "text/plain")
            #expect(outcome.parts.allSatisfy { $0.ended })
        }
    }

    @Test(arguments: [
        "--XyZ-4", "--XyZ-4 not it", "\r\n--XyZ-4", "\r\n--XyZ-4\r\n", "x--XyZ-42 boundary without CRLF",
        "--XyZ-42", "\r\r\n--XyZ-4", "\r\n-", "\r\n\r\n--\r\n--X", "\r", "ends with CR\r", "ends with CRLF\r\n",
        "ends with partial\r\n--XyZ-",
    ])
    func payloadThatLooksLikeADelimiterIsKept(_ payload: String) {
        let body = bytes(
            "--XyZ-42\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\n" + payload + "\r\n--XyZ-42--")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == nil)
        #expect(outcome.parts.map(\.text) == [payload])
    }

    @Test func transportPaddingAfterBoundaryIsSkipped() {
        let body = bytes(
            "--XyZ-42 \t \r\n\r\nno headers\r\n--XyZ-42\t\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n\r\n--XyZ-42--  \r\n"
        )
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == nil && outcome.sawEnd)
        #expect(outcome.parts.map(\.text) == ["no headers", ""])
        #expect(outcome.parts[0].head.headers.isEmpty && outcome.parts[0].head.name == nil)
        #expect(outcome.parts[1].head.name == "b")
    }

    @Test(arguments: ["file", "files[]", "f", "relativePath", "path", "名前"])
    func anyFieldNameIsReported(_ name: String) {
        let body = bytes(
            "--XyZ-42\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"n.bin\"\r\n\r\n123\r\n--XyZ-42--")
        let outcome = feedMultipart(body, boundary: boundary, chunks: [0..<body.count])
        #expect(outcome.parts.first?.head.name == name)
    }

    @Test func manyEmptyAndShortParts() {
        var text = ""
        for index in 0..<300 {
            text +=
                "\r\n--XyZ-42\r\nContent-Disposition: form-data; name=\"n\(index)\"\r\n\r\n"
                + String(repeating: "x", count: index % 3)
        }
        let body = bytes(text + "\r\n--XyZ-42--\r\n")
        let outcome = feedMultipart(body, boundary: boundary, chunks: [0..<body.count])
        #expect(outcome.failure == nil && outcome.sawEnd)
        #expect(outcome.parts.count == 300)
        #expect(outcome.parts.map(\.payload.count) == (0..<300).map { $0 % 3 })
        let bytewise = feedMultipart(body, boundary: boundary, chunks: (0..<body.count).map { $0..<$0 + 1 })
        #expect(bytewise == outcome)
    }

    @Test func binaryPayloadWithEveryByteValue() {
        let payload = (0..<1024).map { UInt8(truncatingIfNeeded: $0 * 7) } + bytes("\r\n--XyZ-4") + [0x0D]
        let body =
            bytes("--XyZ-42\r\nContent-Disposition: form-data; name=\"f\"; filename=\"b.bin\"\r\n\r\n") + payload
            + bytes("\r\n--XyZ-42--")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.parts.first?.payload == payload)
    }

    @Test func missingCloseDelimiterFailsAtFinish() {
        let body = bytes("--XyZ-42\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\"\r\n\r\nhalf a fi")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == .badRequest("The upload ended before the end of the form data; it was probably interrupted."))
        #expect(outcome.parts.first?.text == "half a fi")
        #expect(outcome.parts.first?.ended == false)
    }

    @Test(arguments: [
        "", "--XyZ-42", "--XyZ-42\r\nContent-Disposition: form-data; name=\"f\"\r\n", "--XyZ-42\r\n\r\n\r\n--XyZ-42-",
    ])
    func truncatedBodiesFailAtFinish(_ text: String) {
        let outcome = feedMultipartThreeWays(bytes(text), boundary: boundary)
        #expect(outcome.failure != nil)
        #expect(!outcome.sawEnd)
    }

    @Test func wrongBoundaryFindsNoPart() {
        let body = bytes("--other\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nx\r\n--other--\r\n")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.parts.isEmpty)
        #expect(
            outcome.failure
                == .badRequest("The request body contains no part with the boundary named in its Content-Type header."))
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends with space ", "bad\r\nchars", "semi;colon"])
    func invalidBoundaryFailsAtOnce(_ invalid: String) {
        var parser = MultipartParser(boundary: invalid)
        let step = bytes("--x\r\n\r\n").withUnsafeBytes { parser.parse($0) }
        #expect(step.event == .failed(.badRequest("The multipart boundary in the Content-Type header is not valid.")))
        #expect(parser.finish() == step.event)
    }

    @Test(arguments: [
        "--XyZ-42X\r\n", "--XyZ-42-x", "--XyZ-42 x\r\n", "--XyZ-42\rx", "--XyZ-42\r\nno colon here\r\n\r\n",
        "--XyZ-42\r\n: empty name\r\n\r\n", "--XyZ-42\r\n continuation first\r\n\r\n",
        "--XyZ-42\r\nA: nul\0\r\n\r\n", "--XyZ-42\r\nA: bare\rCR\r\n\r\n",
        "--XyZ-42\r\nContent-Disposition: form-data; name=\"unterminated\r\n\r\n",
    ])
    func malformedDelimiterLinesAndHeadsFail(_ text: String) {
        let outcome = feedMultipartThreeWays(bytes(text + "\r\n--XyZ-42--"), boundary: boundary)
        guard case .badRequest(let message)? = outcome.failure else {
            Issue.record("expected a 400, got \(outcome)")
            return
        }
        #expect(message.hasSuffix(".") || message.hasSuffix("?"))
        #expect(outcome.parts.isEmpty)
    }

    @Test func foldedAndLatin1HeaderValuesAreRead() {
        let body =
            bytes("--XyZ-42\r\nContent-Disposition: form-data;\r\n name=\"f\"; filename=\"caf") + [0xE9]
            + bytes(".txt\"\r\n\r\nx\r\n--XyZ-42--")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == nil)
        #expect(outcome.parts.first?.head.name == "f")
        #expect(outcome.parts.first?.head.filename == "café.txt")
    }

    // MARK: Limits, each tried at the limit and one byte (or item) over.

    private func partHead(paddedTo size: Int) -> String {
        // "X: " + value + CRLF + CRLF, where the value fills the section to `size` bytes.
        "X: " + String(repeating: "v", count: size - 7) + "\r\n\r\n"
    }

    @Test func partHeadSizeLimit() {
        var limits = MultipartLimits()
        limits.maxPartHeadSize = 64
        let atLimit = bytes("--XyZ-42\r\n" + partHead(paddedTo: 64) + "x\r\n--XyZ-42--")
        #expect(feedMultipartThreeWays(atLimit, boundary: boundary, limits: limits).failure == nil)
        let over = bytes("--XyZ-42\r\n" + partHead(paddedTo: 65) + "x\r\n--XyZ-42--")
        #expect(
            feedMultipartThreeWays(over, boundary: boundary, limits: limits).failure
                == .badRequest("A part of the form has headers larger than 64 bytes."))
        #expect(MultipartLimits().maxPartHeadSize == 8 * 1024)
    }

    @Test func partHeaderCountLimit() {
        var limits = MultipartLimits()
        limits.maxPartHeaderCount = 3
        let three = bytes("--XyZ-42\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n\r\n--XyZ-42--")
        #expect(feedMultipartThreeWays(three, boundary: boundary, limits: limits).failure == nil)
        let four = bytes("--XyZ-42\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n\r\n--XyZ-42--")
        #expect(
            feedMultipartThreeWays(four, boundary: boundary, limits: limits).failure
                == .badRequest("A part of the form has more than 3 headers."))
        #expect(MultipartLimits().maxPartHeaderCount == 32)
    }

    @Test func partCountLimit() {
        var limits = MultipartLimits()
        limits.maxParts = 4
        func body(parts: Int) -> [UInt8] {
            bytes(String(repeating: "--XyZ-42\r\n\r\nx\r\n", count: parts) + "--XyZ-42--")
        }
        #expect(feedMultipartThreeWays(body(parts: 4), boundary: boundary, limits: limits).failure == nil)
        let over = feedMultipartThreeWays(body(parts: 5), boundary: boundary, limits: limits)
        #expect(over.failure == .badRequest("The form has more than 4 parts."))
        #expect(over.parts.count == 4)
        #expect(MultipartLimits().maxParts == 10_000)
    }

    @Test func fieldSizeLimitAppliesToFieldsOnly() {
        var limits = MultipartLimits()
        limits.maxFieldSize = 10
        func body(_ disposition: String, size: Int) -> [UInt8] {
            bytes(
                "--XyZ-42\r\nContent-Disposition: form-data; \(disposition)\r\n\r\n" + String(repeating: "-", count: size)
                    + "\r\n--XyZ-42--")
        }
        #expect(
            feedMultipartThreeWays(body("name=\"relativePath\"", size: 10), boundary: boundary, limits: limits).failure == nil)
        #expect(
            feedMultipartThreeWays(body("name=\"relativePath\"", size: 11), boundary: boundary, limits: limits).failure
                == .badRequest("The form field \"relativePath\" is larger than 10 bytes."))
        #expect(
            feedMultipartThreeWays(body("name=\"f\"; filename=\"big\"", size: 1000), boundary: boundary, limits: limits).failure
                == nil)
        #expect(MultipartLimits().maxFieldSize == 64 * 1024)
    }

    @Test func parserStaysFailedAndEpilogueIsSwallowed() {
        var parser = MultipartParser(boundary: boundary)
        let first = bytes("--XyZ-42X").withUnsafeBytes { parser.parse($0) }
        guard case .failed = first.event else {
            Issue.record("a boundary followed by other characters must fail, got \(first)")
            return
        }
        #expect(bytes("more").withUnsafeBytes { parser.parse($0) } == MultipartStep(consumed: 0, event: first.event))
        #expect(parser.finish() == first.event)

        var ended = MultipartParser(boundary: boundary)
        let closed = bytes("--XyZ-42--")
        #expect(closed.withUnsafeBytes { ended.parse($0) } == MultipartStep(consumed: 10, event: .end))
        #expect(
            bytes("junk\r\n--XyZ-42\r\n").withUnsafeBytes { ended.parse($0) } == MultipartStep(consumed: 16, event: .needMore))
        #expect(ended.finish() == nil)
    }
}
