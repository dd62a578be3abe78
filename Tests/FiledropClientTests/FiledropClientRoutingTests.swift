import Foundation
import Testing

@testable import FiledropClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where requests go for each trust choice: plain HTTP and the system store as they are;
/// on Linux, a CA or pin through the TLS relay (keeping the server's Host), and never
/// silently without it.
@Suite struct FiledropClientRoutingTests {
    let server = URL(string: "https://192.168.1.20:8443")!
    let pin = ServerTrust.pinnedCertificate(CertificateFingerprint(digest: [UInt8](repeating: 7, count: 32))!)

    @Test func systemTrustAndPlainHTTPGoDirect() throws {
        let client = FiledropClient(baseURL: server, resumeStore: nil)
        let request = client.makeRequest(path: "/files/a")
        #expect(try client.routed(request).url == request.url)
        let plain = FiledropClient(baseURL: URL(string: "http://192.168.1.20:8080")!, resumeStore: nil, serverTrust: pin)
        #expect(try plain.routed(plain.makeRequest(path: "/")).url?.absoluteString == "http://192.168.1.20:8080/")
    }

    #if canImport(FoundationNetworking)
        @Test func aPinWithoutARelayFailsInsteadOfTrustingTheSystem() {
            let client = FiledropClient(baseURL: server, resumeStore: nil, serverTrust: pin)
            #expect {
                try client.routed(client.makeRequest(path: "/files/a"))
            } throws: { error in
                guard case .untrustedServer = error as? FiledropClientError else { return false }
                return true
            }
        }

        @Test func theRelayGetsTheRequestWithTheServersHost() throws {
            var client = FiledropClient(baseURL: server, resumeStore: nil, serverTrust: pin)
            client.tlsRelay = URL(string: "http://127.0.0.1:40123")!
            let routed = try client.routed(client.makeRequest(path: "/files/a%20b?x=1"))
            #expect(routed.url?.absoluteString == "http://127.0.0.1:40123/files/a%20b?x=1")
            #expect(routed.value(forHTTPHeaderField: "Host") == "192.168.1.20:8443")
            // A tus Location is absolute: still the same server, still relayed.
            let location = try client.routed(
                client.makeRequest(url: URL(string: "https://192.168.1.20:8443/files/.tus/abc")!, method: "PATCH"))
            #expect(location.url?.absoluteString == "http://127.0.0.1:40123/files/.tus/abc")
        }

        @Test func theRelayCarriesOnlyItsServer() {
            var client = FiledropClient(baseURL: server, resumeStore: nil, serverTrust: pin)
            client.tlsRelay = URL(string: "http://127.0.0.1:40123")!
            #expect(throws: FiledropClientError.self) {
                try client.routed(client.makeRequest(url: URL(string: "https://elsewhere.example:8443/")!))
            }
        }

        @Test func anIPv6ServerKeepsItsBrackets() throws {
            var client = FiledropClient(baseURL: URL(string: "https://[fe80::1]:8443")!, resumeStore: nil, serverTrust: pin)
            client.tlsRelay = URL(string: "http://127.0.0.1:40123")!
            #expect(try client.routed(client.makeRequest(path: "/")).value(forHTTPHeaderField: "Host") == "[fe80::1]:8443")
        }
    #endif
}
