import Foundation
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// The CA of `tls = auto`: made once with the right files and modes, loaded again with the
/// same identity (as the openssl tool sees it), and refused, naming the file, when damaged.
@Suite struct LocalCertificateAuthorityTests {
    @Test func createdOnceWithPrivateFilesThenLoadedAgain() throws {
        let temporary = try TemporaryDirectory()
        let created = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "filedrop CA on test")
        #expect(temporary.mode(temporary.tls) == 0o700)
        #expect(temporary.mode(temporary.tls + "/ca.key") == 0o600)
        #expect(temporary.mode(temporary.tls + "/ca.crt") == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.tls).sorted() == ["ca.crt", "ca.key"])
        let key = String(decoding: temporary.contents(temporary.tls + "/ca.key") ?? [], as: UTF8.self)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(temporary.contents(temporary.tls + "/ca.crt") == created.certificatePEM)

        let loaded = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls + "/", commonName: "another name")
        #expect(loaded.fingerprintSHA256 == created.fingerprintSHA256)
        #expect(loaded.certificateDER == created.certificateDER)
        #expect(loaded.notAfter == created.notAfter)
        #expect(temporary.contents(temporary.tls + "/ca.key").map { String(decoding: $0, as: UTF8.self) } == key)
    }

    @Test func fingerprintAndExtensionsAsOpenSSLSeesThem() throws {
        try #require(OpenSSLCommand.isAvailable, "needs /usr/bin/openssl")
        let temporary = try TemporaryDirectory()
        let now = Clock.wallClockSeconds()
        let authority = try LocalCertificateAuthority.loadOrCreate(
            directory: temporary.tls, commonName: "filedrop CA on test", now: now)
        let certificate = temporary.tls + "/ca.crt"

        let fingerprint = try OpenSSLCommand.run(["x509", "-noout", "-fingerprint", "-sha256", "-in", certificate])
        #expect(fingerprint.status == 0)
        let printed = fingerprint.output.split(separator: "=", maxSplits: 1).last.map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(printed == authority.fingerprintSHA256)
        #expect(authority.fingerprintSHA256.count == 32 * 3 - 1)

        let text = try OpenSSLCommand.run(["x509", "-noout", "-text", "-nameopt", "RFC2253", "-in", certificate]).output
        #expect(text.contains("Subject: CN=filedrop CA on test,O=filedrop"))
        #expect(text.contains("Issuer: CN=filedrop CA on test,O=filedrop"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("ASN1 OID: prime256v1"))
        #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:TRUE, pathlen:0"))
        #expect(text.contains("X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign"))
        #expect(text.contains("X509v3 Subject Key Identifier"))
        // 128 random bits: 16 bytes, or 17 with a leading 00 when the top bit is set.
        let serial = try OpenSSLCommand.run(["x509", "-noout", "-serial", "-in", certificate]).output
        let hex = serial.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        #expect(hex.count >= 24 && hex.count <= 34, "serial \(hex)")

        let dates = try OpenSSLCommand.run([
            "x509", "-noout", "-startdate", "-enddate", "-dateopt", "iso_8601", "-in", certificate,
        ])
        #expect(dates.status == 0, "\(dates.output)")
        #expect(authority.notAfter == now + 3_652 * 86_400)
        // The self-signed certificate verifies against itself, as a trust anchor must.
        #expect(try OpenSSLCommand.run(["verify", "-CAfile", certificate, certificate]).status == 0)
    }

    @Test func aKeyReadableByOthersIsRefused() throws {
        let temporary = try TemporaryDirectory()
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        let key = temporary.tls + "/ca.key"
        for mode: mode_t in [0o644, 0o640, 0o604, 0o620] {
            chmod(key, mode)
            let error = #expect(throws: CertificateError.self) {
                try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
            }
            #expect(error == .keyOpenToOthers(path: key, mode: UInt32(mode)))
            #expect(error?.description.contains(key) == true)
            #expect(error?.description.contains("chmod 600") == true)
        }
        #expect(
            CertificateError.keyOpenToOthers(path: "/x/ca.key", mode: 0o644).description
                == "the CA key /x/ca.key is readable by other users (mode 0644); chmod 600 it")
        chmod(key, 0o400)
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
    }

    @Test func theKeyOfAnotherCAIsRefused() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        _ = try LocalCertificateAuthority.loadOrCreate(directory: first.tls, commonName: "first")
        _ = try LocalCertificateAuthority.loadOrCreate(directory: second.tls, commonName: "second")
        try first.write(second.contents(second.tls + "/ca.key") ?? [], to: first.tls + "/ca.key", mode: 0o600)
        let error = #expect(throws: CertificateError.self) {
            try LocalCertificateAuthority.loadOrCreate(directory: first.tls, commonName: "first")
        }
        #expect(error == .keyMismatch(key: first.tls + "/ca.key", certificate: first.tls + "/ca.crt"))
        #expect(error?.description.contains(first.tls + "/ca.key") == true)
    }

    /// Truncated and garbage files of each kind; each error names the damaged file.
    @Test(arguments: ["ca.key", "ca.crt"])
    func damagedFilesAreRefused(file: String) throws {
        let temporary = try TemporaryDirectory()
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        let path = temporary.tls + "/" + file
        let original = temporary.contents(path) ?? []
        let damaged: [[UInt8]] = [
            Array(original.prefix(original.count / 2)),
            Array(original.prefix(40)),
            Array("not a PEM file at all\n".utf8),
            [],
            (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) },
        ]
        for bytes in damaged {
            try temporary.write(bytes, to: path, mode: file == "ca.key" ? 0o600 : 0o644)
            let error = #expect(throws: CertificateError.self) {
                try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
            }
            #expect(error == (file == "ca.key" ? .keyUnparsable(path: path) : .certificateUnparsable(path: path)))
            #expect(error?.description.contains(path) == true)
        }
        try temporary.write(original, to: path, mode: file == "ca.key" ? 0o600 : 0o644)
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
    }

    /// One file without the other is left for a person to sort out, not replaced by a new CA.
    @Test(arguments: ["ca.key", "ca.crt"])
    func aMissingHalfIsRefused(file: String) throws {
        let temporary = try TemporaryDirectory()
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        let missing = temporary.tls + "/" + file
        let present = temporary.tls + "/" + (file == "ca.key" ? "ca.crt" : "ca.key")
        unlink(missing)
        let error = #expect(throws: CertificateError.self) {
            try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        }
        #expect(error == .companionMissing(missing: missing, present: present))
        #expect(error?.description.hasPrefix(missing + " is missing") == true)
        #expect(temporary.mode(missing) == nil)
    }

    @Test func anExpiredCAIsRefused() throws {
        let temporary = try TemporaryDirectory()
        let elevenYearsAgo = Clock.wallClockSeconds() - 11 * 365 * 86_400
        let old = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "old", now: elevenYearsAgo)
        let error = #expect(throws: CertificateError.self) {
            try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "old")
        }
        #expect(error == .expired(path: temporary.tls + "/ca.crt", notAfter: old.notAfter))
        #expect(error?.description.contains(temporary.tls + "/ca.crt") == true)
        #expect(error?.description.contains(" UTC") == true)
    }

    /// A leaf certificate put in ca.crt with its key: a valid pair, but it cannot sign.
    @Test func aCertificateThatIsNotACAIsRefused() throws {
        let temporary = try TemporaryDirectory()
        let authority = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        let leaf = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: [], now: Clock.wallClockSeconds())
        try temporary.write(leaf.privateKeyPEM, to: temporary.tls + "/ca.key", mode: 0o600)
        try temporary.write(leaf.certificateChainPEM, to: temporary.tls + "/ca.crt")
        let error = #expect(throws: CertificateError.self) {
            try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        }
        #expect(error == .notCertificateAuthority(path: temporary.tls + "/ca.crt"))
    }

    @Test func anUnusableDirectoryIsNamed() throws {
        let temporary = try TemporaryDirectory()
        try temporary.write([0x61], to: temporary.path + "/state")
        let error = #expect(throws: CertificateError.self) {
            try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: "test")
        }
        #expect(error?.description.contains(temporary.path + "/state") == true, "\(String(describing: error))")
    }

    /// A long hostname would make a CN over the 64-character limit: it is cut, not refused.
    @Test func aLongCommonNameIsCut() throws {
        let temporary = try TemporaryDirectory()
        let name = "filedrop CA on " + String(repeating: "é", count: 80)
        _ = try LocalCertificateAuthority.loadOrCreate(directory: temporary.tls, commonName: name)
        try #require(OpenSSLCommand.isAvailable, "needs /usr/bin/openssl")
        let subject = try OpenSSLCommand.run([
            "x509", "-noout", "-subject", "-nameopt", "RFC2253,-esc_msb", "-in", temporary.tls + "/ca.crt",
        ]).output
        #expect(subject.contains("CN=" + String(name.prefix(64)) + ","), "\(subject)")
    }
}
