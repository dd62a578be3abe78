import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The origin a request was sent to, for absolute URLs such as tus's Location: the scheme it
/// came over, the host and port as the client wrote them, IPv6 in brackets.
@Suite struct RequestOriginTests {
    static func head(target: String = "/files/", host: String?, version: HTTPVersion = .http1_1) -> RequestHead {
        RequestHead(
            method: .post, target: target, version: version, headers: HTTPHeaders(host.map { [(name: "Host", value: $0)] } ?? []))
    }

    @Test(arguments: [
        ("192.168.1.5:8443", true, "https://192.168.1.5:8443"),
        ("192.168.1.5:8080", false, "http://192.168.1.5:8080"),
        ("[fe80::1]:8443", true, "https://[fe80::1]:8443"),
        ("[::1]", false, "http://[::1]"),
        ("laptop.local", false, "http://laptop.local"),
        (" 10.0.0.2:80 ", false, "http://10.0.0.2:80"),
    ])
    func theHostAndTheScheme(host: String, secure: Bool, origin: String) {
        #expect(RequestOrigin(head: Self.head(host: host), isSecure: secure)?.text == origin)
    }

    @Test func anAbsoluteFormTargetNamesTheAuthority() {
        let head = Self.head(target: "http://10.0.0.2:8080/files/", host: "10.0.0.2:8080")
        #expect(
            RequestOrigin(head: head, isSecure: false)?.url(path: LocationPath(components: ["files", ".tus", "x"]))
                == "http://10.0.0.2:8080/files/.tus/x")
    }

    @Test func noHostNoOrigin() {
        #expect(RequestOrigin(head: Self.head(host: nil, version: .http1_0), isSecure: false) == nil)
        #expect(RequestOrigin(head: Self.head(host: "[nonsense]"), isSecure: false) == nil)
    }
}
