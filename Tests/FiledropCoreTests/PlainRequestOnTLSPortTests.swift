import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Plain HTTP sent to the HTTPS port: a 400 naming the HTTPS URL, echoing only what is safe.
@Suite struct PlainRequestOnTLSPortTests {
    let responder = PlainRequestOnTLSPort(port: 8443)

    func url(target: String = "/files/a.txt", host: String?) -> String {
        var headers: HTTPHeaders = [:]
        if let host { headers.add(name: "Host", value: host) }
        return responder.httpsURL(for: RequestHead(method: .get, target: target, version: .http1_1, headers: headers))
    }

    @Test(arguments: [
        ("192.168.1.5:8080", "https://192.168.1.5:8443/files/a.txt"),
        ("nas.local", "https://nas.local:8443/files/a.txt"),
        ("[fe80::1]:8080", "https://[fe80::1]:8443/files/a.txt"),
        ("<script>", "https://this-server:8443/files/a.txt"),
    ])
    func theURLKeepsTheHostAndPathAndNamesThisPort(host: String, expected: String) {
        #expect(url(host: host) == expected)
    }

    @Test func withoutAHostOrWithAnOddPathItSaysSoGenerically() {
        #expect(url(host: nil) == "https://this-server:8443/files/a.txt")
        #expect(url(target: "/a\"b<c>", host: "10.0.0.1") == "https://10.0.0.1:8443/")
        #expect(
            PlainRequestOnTLSPort(port: 443).httpsURL(
                for: RequestHead(
                    method: .get, target: "/", version: .http1_1,
                    headers: ["Host": "10.0.0.1"])) == "https://10.0.0.1/")
    }

    @Test func theAnswerIsA400InTheClientsFormat() throws {
        let head = RequestHead(
            method: .get, target: "/", version: .http1_1,
            headers: ["Host": "10.0.0.1:8443", "Accept": "text/html"])
        guard
            case .respond(let response) = responder.route(head, context: RequestContext(client: "10.0.0.2", wallClockSeconds: 0)),
            case .bytes(let body) = response.body
        else {
            Issue.record("expected a response with a body")
            return
        }
        #expect(response.status == .badRequest)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: body, as: UTF8.self).contains("This port speaks HTTPS: https://10.0.0.1:8443/"))
    }
}
