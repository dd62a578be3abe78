import Foundation
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// Loading certificates and keys into an SSL_CTX: what works, and that each failure names
/// the file at fault (the daemon prints it and exits 2). Certificates come from the
/// `openssl` command, the outside witness, which also checks our fingerprint.
@Suite struct TLSContextTests {
    /// A CA, a leaf it signed, another key, and their PEM files, made once per test.
    struct Material {
        let directory: URL
        var leafCertificate: URL { directory.appendingPathComponent("leaf.crt") }
        var leafKey: URL { directory.appendingPathComponent("leaf.key") }
        var caCertificate: URL { directory.appendingPathComponent("ca.crt") }
        var otherKey: URL { directory.appendingPathComponent("other.key") }
        var chain: URL { directory.appendingPathComponent("chain.pem") }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.path
            try openssl(
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(path)/ca.key",
                "-out", "\(path)/ca.crt", "-days", "2", "-subj", "/CN=test CA")
            try openssl(
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(path)/leaf.key",
                "-out", "\(path)/leaf.csr", "-subj", "/CN=localhost")
            try openssl(
                "x509", "-req", "-in", "\(path)/leaf.csr", "-CA", "\(path)/ca.crt", "-CAkey", "\(path)/ca.key",
                "-CAcreateserial", "-out", "\(path)/leaf.crt", "-days", "1")
            try openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(path)/other.key")
            try (Data(contentsOf: leafCertificate) + Data(contentsOf: caCertificate)).write(to: chain)
        }

        func bytes(_ url: URL) throws -> [UInt8] { Array(try Data(contentsOf: url)) }

        func credentials(certificate: URL? = nil, key: URL? = nil) throws -> TLSCredentials {
            let certificate = certificate ?? leafCertificate
            let key = key ?? leafKey
            return TLSCredentials(
                certificateChainPEM: try bytes(certificate), privateKeyPEM: try bytes(key),
                certificateSource: certificate.path, keySource: key.path)
        }

        @discardableResult
        func openssl(_ arguments: String...) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " "))")
            return text
        }
    }

    @Test func aLeafAndItsKeyLoadAndTheFingerprintIsOpenSSLs() throws {
        let material = try Material()
        let context = try TLSContext(credentials: material.credentials(), kernelTLS: false)
        let printed = try material.openssl("x509", "-noout", "-fingerprint", "-sha256", "-in", material.leafCertificate.path)
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == "sha256 Fingerprint=\(context.fingerprintSHA256)")
    }

    @Test func aChainWithItsCALoads() throws {
        let material = try Material()
        let context = try TLSContext(credentials: material.credentials(certificate: material.chain), kernelTLS: false)
        // The fingerprint is the leaf's, the first certificate of the chain.
        #expect(
            context.fingerprintSHA256 == (try TLSContext(credentials: material.credentials(), kernelTLS: false)).fingerprintSHA256
        )
    }

    @Test func aKeyOfAnotherCertificateIsRefusedNamingBothFiles() throws {
        let material = try Material()
        let error = try #require(throws: TLSError.self) {
            try TLSContext(credentials: material.credentials(key: material.otherKey), kernelTLS: false)
        }
        #expect(error.description.contains(material.otherKey.path))
        #expect(error.description.contains(material.leafCertificate.path))
    }

    @Test func aFileWithoutACertificateIsRefusedNamingIt() throws {
        let material = try Material()
        let error = try #require(throws: TLSError.self) {
            try TLSContext(credentials: material.credentials(certificate: material.leafKey), kernelTLS: false)
        }
        #expect(error.description.contains("holds no PEM certificate"))
        #expect(error.description.contains(material.leafKey.path))
    }

    @Test func aGarbledKeyIsRefusedNamingIt() throws {
        let material = try Material()
        let garbled = material.directory.appendingPathComponent("garbled.key")
        var text = try material.bytes(material.leafKey)
        text.replaceSubrange(40..<60, with: Array("!!!!!!!!!!!!!!!!!!!!".utf8))
        try Data(text).write(to: garbled)
        let error = try #require(throws: TLSError.self) {
            try TLSContext(credentials: material.credentials(key: garbled), kernelTLS: false)
        }
        #expect(error.description.contains(garbled.path))
    }
}
