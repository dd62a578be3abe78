import Testing
@testable import FiledropCore

@Test func headerLookupIgnoresCase() {
    let headers: HTTPHeaders = ["Content-Type": "text/plain", "connection": "Keep-Alive, Upgrade"]
    #expect(headers["content-type"] == "text/plain")
    #expect(headers.tokens(for: "Connection") == ["keep-alive", "upgrade"])
    #expect(headers["missing"] == nil)
}
