import Foundation
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// Server certificates from the local CA, checked by `openssl verify` for real: they verify
/// for every name and address they were issued for and for no other.
@Suite struct LocalCertificateAuthorityIssueTests {
    let temporary: TemporaryDirectory
    let authority: LocalCertificateAuthority

    init() throws {
        temporary = try TemporaryDirectory()
        authority = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "filedrop CA on test")
    }

    /// The leaf and its chain written for `openssl verify`: `-untrusted` is not needed, the
    /// leaf is signed by the CA directly.
    private func leafFile(_ issued: IssuedCertificate) throws -> String {
        let path = temporary.path + "/leaf.pem"
        try temporary.write(issued.certificateChainPEM, to: path)
        return path
    }

    private func verify(_ leaf: String, _ check: [String], at time: Int64? = nil) throws -> OpenSSLCommand.Outcome {
        let attime = time.map { ["-attime", String($0)] } ?? []
        return try OpenSSLCommand.run(
            ["verify", "-CAfile", temporary.tls + "/ca.crt", "-purpose", "sslserver"] + attime + check + [leaf])
    }

    @Test func verifiesForItsNamesAndAddressesOnly() throws {
        try #require(OpenSSLCommand.isAvailable, "needs /usr/bin/openssl")
        let issued = try authority.issueServerCertificate(
            dnsNames: ["localhost", "nas", "nas.local", "files.home"],
            ipAddresses: ["127.0.0.1", "::1", "192.168.1.20", "fd00:1:2::3"],
            now: Clock.wallClockSeconds())
        let leaf = try leafFile(issued)
        for name in ["localhost", "nas", "nas.local", "files.home", "NAS.Local"] {
            let outcome = try verify(leaf, ["-verify_hostname", name])
            #expect(outcome.status == 0, "\(name): \(outcome.output)")
        }
        for address in ["127.0.0.1", "::1", "192.168.1.20", "fd00:1:2::3", "fd00:1:2:0:0:0:0:3"] {
            let outcome = try verify(leaf, ["-verify_ip", address])
            #expect(outcome.status == 0, "\(address): \(outcome.output)")
        }
        for name in ["other.example", "local", "nas.lan", "www.localhost"] {
            let outcome = try verify(leaf, ["-verify_hostname", name])
            #expect(outcome.status != 0, "\(name) verified")
            #expect(outcome.output.contains("hostname mismatch"), "\(outcome.output)")
        }
        for address in ["127.0.0.2", "::2", "192.168.1.21"] {
            #expect(try verify(leaf, ["-verify_ip", address]).status != 0, "\(address) verified")
        }
        // The chain is the leaf, then the CA certificate; the key is PKCS#8 and fits the leaf.
        let text = String(decoding: issued.certificateChainPEM, as: UTF8.self)
        #expect(text.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
        #expect(text.hasSuffix(String(decoding: authority.certificatePEM, as: UTF8.self)))
        #expect(String(decoding: issued.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let keyFile = temporary.path + "/leaf.key"
        try temporary.write(issued.privateKeyPEM, to: keyFile, mode: 0o600)
        let keyDigest = try OpenSSLCommand.run(["pkey", "-in", keyFile, "-pubout"]).output
        let certificateDigest = try OpenSSLCommand.run(["x509", "-in", leaf, "-noout", "-pubkey"]).output
        #expect(!keyDigest.isEmpty && keyDigest == certificateDigest)
        #expect(!issued.description.contains("PRIVATE"))
    }

    @Test func lifetimeExtensionsAndSubject() throws {
        try #require(OpenSSLCommand.isAvailable, "needs /usr/bin/openssl")
        let now = Clock.wallClockSeconds()
        let issued = try authority.issueServerCertificate(
            dnsNames: ["nas.local"], ipAddresses: ["10.0.0.7", "fe80::1"], now: now)
        #expect(issued.notBefore == now - 3_600)
        #expect(issued.notAfter == now + 7 * 86_400)
        #expect(issued.dnsNames == ["nas.local"] && issued.ipAddresses == ["10.0.0.7", "fe80::1"])
        let leaf = try leafFile(issued)
        let text = try OpenSSLCommand.run(["x509", "-in", leaf, "-noout", "-text", "-nameopt", "RFC2253"]).output
        #expect(text.contains("Subject: CN=nas.local\n"))
        #expect(text.contains("Issuer: CN=filedrop CA on test,O=filedrop"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:FALSE"))
        #expect(text.contains("X509v3 Key Usage: critical\n                Digital Signature\n"))
        #expect(text.contains("X509v3 Extended Key Usage: \n                TLS Web Server Authentication\n"))
        #expect(
            text.contains(
                "X509v3 Subject Alternative Name: \n                DNS:nas.local, IP Address:10.0.0.7, IP Address:FE80:0:0:0:0:0:0:1\n"
            ))
        #expect(text.contains("X509v3 Subject Key Identifier"))
        #expect(text.contains("X509v3 Authority Key Identifier"))

        // Valid from an hour ago to a week ahead, and not a second beyond.
        #expect(try verify(leaf, ["-verify_hostname", "nas.local"], at: now - 3_600).status == 0)
        #expect(try verify(leaf, ["-verify_hostname", "nas.local"], at: now + 7 * 86_400 - 1).status == 0)
        #expect(try verify(leaf, ["-verify_hostname", "nas.local"], at: now - 3_601).status != 0)
        #expect(try verify(leaf, ["-verify_hostname", "nas.local"], at: now + 7 * 86_400 + 1).status != 0)
        // serverAuth only: not usable as a client certificate.
        let asClient = try OpenSSLCommand.run(["verify", "-CAfile", temporary.tls + "/ca.crt", "-purpose", "sslclient", leaf])
        #expect(asClient.status != 0)

        let fingerprint = try OpenSSLCommand.run(["x509", "-in", leaf, "-noout", "-fingerprint", "-sha256"]).output
        #expect(fingerprint.hasSuffix("=" + issued.fingerprintSHA256 + "\n"))
    }

    @Test func anAddressOnlyCertificateAndACustomLifetime() throws {
        try #require(OpenSSLCommand.isAvailable, "needs /usr/bin/openssl")
        let now = Clock.wallClockSeconds()
        let issued = try authority.issueServerCertificate(
            dnsNames: [], ipAddresses: ["::1", "127.0.0.1", "::1"], now: now, lifetime: 600)
        #expect(issued.ipAddresses == ["::1", "127.0.0.1"])
        #expect(issued.notAfter == now + 600)
        let leaf = try leafFile(issued)
        #expect(
            try OpenSSLCommand.run(["x509", "-in", leaf, "-noout", "-subject", "-nameopt", "RFC2253"]).output
                == "subject=CN=::1\n")
        #expect(try verify(leaf, ["-verify_ip", "::1"]).status == 0)
        #expect(try verify(leaf, ["-verify_ip", "127.0.0.1"]).status == 0)
    }

    /// A leaf never outlives the CA that signed it.
    @Test func theLeafEndsWithTheCA() throws {
        let issued = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: [], now: authority.notAfter - 60)
        #expect(issued.notAfter == authority.notAfter)
    }

    @Test(arguments: [
        "", "bad name", "a..b", "-lead.example", "nas\n", "ünïcode.example", "*.example",
        String(repeating: "a", count: 64) + ".example",
    ])
    func namesThatAreNotDNSNamesAreRefused(name: String) {
        #expect(throws: CertificateError.invalidName(name)) {
            try authority.issueServerCertificate(dnsNames: [name], ipAddresses: [], now: Clock.wallClockSeconds())
        }
    }

    @Test(arguments: ["[::1]", "fe80::1%eth0", "256.1.1.1", "1.2.3", "localhost", "::g"])
    func addressesThatAreNotLiteralsAreRefused(address: String) {
        #expect(throws: CertificateError.invalidName(address)) {
            try authority.issueServerCertificate(dnsNames: [], ipAddresses: [address], now: Clock.wallClockSeconds())
        }
        #expect(CertificateError.invalidName(address).description.contains("neither a DNS name nor an IP address"))
    }

    /// Each issue has its own key and serial.
    @Test func everyIssueHasAFreshKey() throws {
        let now = Clock.wallClockSeconds()
        let first = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: [], now: now)
        let second = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: [], now: now)
        #expect(first.privateKeyPEM != second.privateKeyPEM)
        #expect(first.fingerprintSHA256 != second.fingerprintSHA256)
    }

    /// server.crt holds the chain for operators, never the key, and is replaced by the next one.
    @Test func serverCertificateFileForOperators() throws {
        let now = Clock.wallClockSeconds()
        let first = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: [], now: now)
        try authority.writeServerCertificateFile(first)
        let second = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"], now: now)
        try authority.writeServerCertificateFile(second)
        #expect(temporary.contents(authority.serverCertificatePath) == second.certificateChainPEM)
        #expect(temporary.mode(authority.serverCertificatePath) == 0o644)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: temporary.tls).sorted() == ["ca.crt", "ca.key", "server.crt"])
    }
}
