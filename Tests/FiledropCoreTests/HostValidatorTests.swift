import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// DNS rebinding: only IP literals, localhost and configured names are served.
@Suite struct HostValidatorTests {
    let validator = HostValidator(names: ["nas.lan", "Filebox", "filebox.local"])

    @Test(arguments: [
        "127.0.0.1", "127.0.0.1:8080", "192.168.1.20:80", "0.0.0.0", "255.255.255.255:65535",
        "[::1]", "[::1]:8080", "[fe80::1]:8080", "[2001:db8::8a2e:370:7334]", "[::ffff:192.168.1.2]:80",
        "[1:2:3:4:5:6:7:8]", "[::]", "localhost", "localhost:8080", "LOCALHOST", "localhost.",
        "nas.lan", "NAS.LAN:8080", "nas.lan.", "filebox", "FILEBOX.local:8080", "127.0.0.1:", "127.0.0.1:00080", "[::1]:",
    ])
    func accepted(host: String) {
        #expect(validator.accepts(authority: host))
    }

    @Test(arguments: [
        "evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example", "nas.lan.evil",
        "", ":8080", "127.0.0.1:65536", "127.0.0.1:80:80", "127.0.0.1:-1", "127.0.0.1: 80", "256.0.0.1", "127.1",
        "0x7f.0.0.1", "01.2.3.4", "[::1", "[::1]x", "[evil.example]", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]",
        "[fe80::1%25eth0]", "[:1]", "::1", "user@127.0.0.1", "nas.lan/", "[::1]:99999", "127.0.0.1:123456",
        "127.0.0.1:8a", "nas.lan\u{301}", "127.0.0.1:\u{301}",
    ])
    func refused(host: String) {
        #expect(!validator.accepts(authority: host))
    }

    /// The byte-level IPv4 shortcut may only accept what the general path accepts.
    @Test(arguments: [
        "127.0.0.1", "127.0.0.1:8080", "127.0.0.1:", "127.0.0.1:00080", "255.255.255.255:65535",
        "127.0.0.1:65536", "127.0.0.1:80:80", "127.0.0.1: 80", "256.0.0.1", "127.1", "01.2.3.4",
        "127.0.0.1:123456", "127.0.0.1:8a", "127.0.0.1:\u{301}", "127.0.0.1\u{301}", "1.2.3.4.", ".1.2.3",
    ])
    func ipv4ShortcutAgreesWithTheGeneralPath(host: String) {
        let shortcut = Array(host.utf8).withUnsafeBytes { IPLiteral.isIPv4Authority($0) }
        let general = HostValidator.split(authority: Substring(host)).map { IPLiteral.isIPv4($0.host) } ?? false
        #expect(shortcut == general)
    }

    @Test func paddedHostHeaderIsTrimmed() throws {
        try validator.check(RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": " \t127.0.0.1:8080 "]))
    }

    @Test func checksTheHostHeader() throws {
        let good = RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": "127.0.0.1:8080"])
        try validator.check(good)
        let bad = RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": "evil.example:8080"])
        #expect(throws: HTTPError.self) { try validator.check(bad) }
        do {
            try validator.check(bad)
        } catch {
            #expect(error.status == .misdirectedRequest)
            #expect(error.message.contains("allowed-hosts"))
        }
    }

    /// RFC 9112 §3.2.2: the authority of an absolute-form target wins over Host.
    @Test func absoluteFormTargetIsChecked() throws {
        let smuggled = RequestHead(
            method: .get, target: "http://evil.example/files/", version: .http1_1, headers: ["Host": "127.0.0.1"])
        #expect(
            throws: HTTPError.misdirectedRequest(
                "This server does not answer to the name \"evil.example\". Open it by its IP address, or add the name to allowed-hosts (--allowed-hosts)."
            )
        ) {
            try validator.check(smuggled)
        }
        let fine = RequestHead(
            method: .get, target: "http://127.0.0.1:8080/files/", version: .http1_1, headers: ["Host": "evil.example"])
        try validator.check(fine)
    }

    /// RFC 9112 §3.2: a Host that is not `host[:port]` is 400; 421 is for a name we don't serve.
    @Test(arguments: [
        "127.0.0.1, localhost", "localhost, 127.0.0.1", "a@127.0.0.1", "user@localhost:80", "", ":8080", "127.0.0.1:65536",
        "127.0.0.1:80:80", "127.0.0.1: 80", "127.0.0.1:8a", "[::1", "[::1]x", "[evil.example]", "[1::2::3]",
        "[fe80::1%25eth0]", "::1", "nas.lan/", "nas.lan?x", "nas.lan#x", "evil example", "caf\u{E9}.lan", "nas.lan\u{301}",
        "a%2", "a%zz.lan", "a\\b", "a\u{1B}[31m",
    ])
    func malformedHostIs400(host: String) {
        let head = RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": host])
        #expect(!validator.accepts(authority: host))
        do {
            try validator.check(head)
            Issue.record("\(host.debugDescription) accepted")
        } catch {
            #expect(error.status == .badRequest, "\(host.debugDescription)")
            #expect(!error.message.contains("\u{1B}"))
        }
    }

    /// Well-formed names (reg-name allows `,` `!` `%41` ...) that we do not serve stay 421.
    @Test(arguments: [
        "evil.example", "evil.example:8080", "127.0.0.1,localhost", "nas.lan.evil", "a%41.lan", "x~y!$&'()*+;=", "256.0.0.1",
        "127.1", "01.2.3.4",
    ])
    func wellFormedForeignHostIs421(host: String) {
        let head = RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": host])
        #expect(throws: HTTPError.self) { try validator.check(head) }
        do {
            try validator.check(head)
        } catch {
            #expect(error.status == .misdirectedRequest, "\(host.debugDescription)")
        }
    }

    @Test func malformedAuthorityOfAnAbsoluteTargetIs400() {
        let head = RequestHead(
            method: .get, target: "http://a@127.0.0.1/files/", version: .http1_1, headers: ["Host": "127.0.0.1"])
        #expect(
            throws: HTTPError.badRequest("The Host \"a@127.0.0.1\" is not a host name or an IP address with an optional port.")
        ) {
            try validator.check(head)
        }
    }

    @Test func http10WithoutHostIsServed() throws {
        try validator.check(RequestHead(method: .get, target: "/", version: .http1_0, headers: [:]))
    }

    @Test func controlCharactersInTheNameAreEscapedInTheMessage() {
        let head = RequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": "a\u{1B}[31m"])
        do {
            try validator.check(head)
            Issue.record("accepted")
        } catch {
            #expect(!error.message.contains("\u{1B}"))
        }
    }
}
