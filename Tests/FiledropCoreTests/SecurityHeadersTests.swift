import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Every response carries the defensive headers; a handler's own policy is not doubled.
@Suite struct SecurityHeadersTests {
    static func head(_ response: Response) -> String {
        String(
            decoding: ResponseHeadSerializer.serialize(response, version: .http1_1, keepAlive: true, date: "d").head,
            as: UTF8.self)
    }

    @Test func defaultsOnABareResponse() {
        let text = Self.head(Response(status: .ok, headers: ["Content-Type": "application/json"]))
        #expect(text.contains("\r\nX-Content-Type-Options: nosniff\r\n"))
        #expect(text.contains("\r\nReferrer-Policy: no-referrer\r\n"))
        #expect(text.contains("\r\nX-Frame-Options: DENY\r\n"))
        #expect(text.contains("\r\nContent-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"))
        #expect(!text.lowercased().contains("access-control-"))
    }

    @Test func theWrittenBlockIsTheTable() {
        let table = ResponseHeadSerializer.securityHeaders.map { "\($0.name.text): \($0.value)\r\n" }.joined()
        #expect(String(decoding: ResponseHeadSerializer.securityHeaderBlock, as: UTF8.self) == table)
        #expect(ResponseHeadSerializer.securityHeaders.allSatisfy { HTTPFieldName($0.name.text) == $0.name })
    }

    @Test func aHandlersPolicyWins() {
        let text = Self.head(Response(status: .ok, headers: ["Content-Security-Policy": "sandbox"]))
        #expect(text.ranges(of: "Content-Security-Policy").count == 1)
        #expect(text.contains("\r\nContent-Security-Policy: sandbox\r\n"))
    }

    @Test(arguments: [
        HTTPError.unauthorized("x"), .forbidden("x"), .misdirectedRequest("x"), .tooManyRequests("x", retryAfterSeconds: 3),
    ])
    func htmlErrorsHaveAPolicy(error: HTTPError) {
        let response = Response.error(error, format: .html)
        #expect(response.headers["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'")
        #expect(response.status == error.status)
    }

    @Test func challengeAndRetryAfterHeaders() {
        #expect(Response.error(.unauthorized("x"), format: .json).headers["WWW-Authenticate"] == BasicCredentials.challenge)
        #expect(Response.error(.tooManyRequests("x", retryAfterSeconds: 7), format: .text).headers["Retry-After"] == "7")
        #expect(Response.error(.forbidden("x"), format: .text).headers["WWW-Authenticate"] == nil)
    }
}
