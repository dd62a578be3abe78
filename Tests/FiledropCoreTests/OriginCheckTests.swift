import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Cross-site request forgery: state-changing requests from other websites are refused;
/// our own page and non-browser clients pass.
@Suite struct OriginCheckTests {
    static func head(_ method: HTTPMethod, _ headers: HTTPHeaders) -> RequestHead {
        var all: HTTPHeaders = ["Host": "192.168.1.20:8080"]
        for (name, value) in headers { all.add(name: name, value: value) }
        return RequestHead(method: method, target: "/upload", version: .http1_1, headers: all)
    }

    static let refused: [HTTPHeaders] = [
        ["Sec-Fetch-Site": "cross-site"],
        ["Sec-Fetch-Site": "same-site"],
        ["Sec-Fetch-Site": "CROSS-SITE"],
        ["Sec-Fetch-Site": "something-new"],
        ["Origin": "http://evil.example"],
        ["Origin": "http://192.168.1.20:9999"],
        ["Origin": "http://192.168.1.20"],
        ["Origin": "null"],
        ["Origin": "null", "Sec-Fetch-Site": "same-site"],
        ["Origin": "file://"],
        ["Origin": "http://192.168.1.20:8080.evil.example"],
        ["Origin": "http://user@192.168.1.20:8080"],
        ["Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example"],
        ["Sec-Fetch-Site": "cross-site", "Origin": "http://192.168.1.20:8080"],
    ]

    @Test(arguments: [HTTPMethod.post, .put, .delete, .patch], refused)
    func stateChangingFromElsewhereIsRefused(method: HTTPMethod, headers: HTTPHeaders) {
        #expect(throws: HTTPError.self) { try OriginCheck.check(Self.head(method, headers)) }
    }

    static let accepted: [HTTPHeaders] = [
        [:],
        ["Sec-Fetch-Site": "same-origin"],
        ["Sec-Fetch-Site": "none"],
        ["Origin": "http://192.168.1.20:8080"],
        ["Origin": "HTTP://192.168.1.20:8080", "Sec-Fetch-Site": "same-origin"],
        // Our own form under Referrer-Policy: no-referrer.
        ["Origin": "null", "Sec-Fetch-Site": "same-origin"],
        // A share target's POST, started by the browser itself.
        ["Origin": "null", "Sec-Fetch-Site": "none"],
    ]

    @Test(arguments: [HTTPMethod.post, .put, .delete], accepted)
    func ownPageAndProgramsPass(method: HTTPMethod, headers: HTTPHeaders) throws {
        try OriginCheck.check(Self.head(method, headers))
    }

    @Test(arguments: [HTTPMethod.get, .head, .options])
    func safeMethodsAreNotChecked(method: HTTPMethod) throws {
        try OriginCheck.check(Self.head(method, ["Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"]))
    }

    @Test func defaultPortsMatchAHostWithoutPort() {
        #expect(OriginCheck.matches(origin: "http://nas.lan", host: "nas.lan"))
        #expect(OriginCheck.matches(origin: "http://nas.lan:80", host: "nas.lan"))
        #expect(OriginCheck.matches(origin: "https://nas.lan", host: "nas.lan"))
        #expect(OriginCheck.matches(origin: "http://[::1]:8080", host: "[::1]:8080"))
        #expect(!OriginCheck.matches(origin: "http://[::1]:8080", host: "[::2]:8080"))
        #expect(!OriginCheck.matches(origin: "http://nas.lan:8080", host: "nas.lan"))
        #expect(!OriginCheck.matches(origin: "ftp://nas.lan", host: "nas.lan"))
        #expect(!OriginCheck.matches(origin: "http://nas.lan", host: nil))
    }

    @Test func refusalSaysWhyInASentence() {
        do {
            try OriginCheck.check(Self.head(.post, ["Sec-Fetch-Site": "cross-site"]))
            Issue.record("accepted")
        } catch {
            #expect(error.status == .forbidden)
            #expect(error.message.contains("another website"))
        }
    }

    /// RFC 6454 §4: the scheme is part of the origin. With TLS on, a page over plain HTTP
    /// is not our HTTPS page's origin, nor the other way round, though host and port match.
    @Test(arguments: [
        ("http://192.168.1.20:8080", "https"), ("https://192.168.1.20:8080", "http"),
        ("HTTPS://192.168.1.20:8080", "http"),
    ])
    func anotherSchemeIsAnotherOrigin(origin: String, scheme: String) {
        #expect(!OriginCheck.matches(origin: origin, host: "192.168.1.20:8080", scheme: scheme))
        #expect(throws: HTTPError.self) { try OriginCheck.check(Self.head(.post, ["Origin": origin]), scheme: scheme) }
        let same = scheme + "://192.168.1.20:8080"
        #expect(OriginCheck.matches(origin: same, host: "192.168.1.20:8080", scheme: scheme))
    }
}
