import Foundation
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// tls-dir's files are published whole, with their mode from the first byte, and never
/// replace a CA file behind another daemon's back.
@Suite struct CertificateDirectoryTests {
    @Test func publishedWholeWithItsModeAndNoTemporaryLeft() throws {
        let temporary = try TemporaryDirectory()
        let directory = CertificateDirectory(path: temporary.tls + "//")
        #expect(directory.keyPath == temporary.tls + "/ca.key")
        try directory.create()
        try directory.publish(Array("public".utf8), as: directory.certificatePath, mode: 0o644, replacing: false)
        try directory.publish(Array("secret".utf8), as: directory.keyPath, mode: 0o600, replacing: false)
        #expect(temporary.mode(directory.certificatePath) == 0o644)
        #expect(temporary.mode(directory.keyPath) == 0o600)
        #expect(try directory.read(directory.keyPath)?.bytes == Array("secret".utf8))
        #expect(try directory.read(directory.keyPath)?.mode == 0o600)
        #expect(try directory.read(directory.serverCertificatePath) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.tls).sorted() == ["ca.crt", "ca.key"])
    }

    /// Two daemons making a CA at once: the second cannot overwrite the first's key.
    @Test func anExistingFileIsNotReplacedUnlessAsked() throws {
        let temporary = try TemporaryDirectory()
        let directory = CertificateDirectory(path: temporary.tls)
        try directory.create()
        try directory.publish(Array("first".utf8), as: directory.keyPath, mode: 0o600, replacing: false)
        #expect(throws: CertificateError.fileUnwritable(path: directory.keyPath, errno: EEXIST)) {
            try directory.publish(Array("second".utf8), as: directory.keyPath, mode: 0o600, replacing: false)
        }
        #expect(temporary.contents(directory.keyPath) == Array("first".utf8))
        try directory.publish(Array("third".utf8), as: directory.keyPath, mode: 0o600, replacing: true)
        #expect(temporary.contents(directory.keyPath) == Array("third".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.tls) == ["ca.key"])
    }

    @Test func unreadableFilesAreNamed() throws {
        let temporary = try TemporaryDirectory()
        let directory = CertificateDirectory(path: temporary.tls)
        try directory.create()
        mkdir(directory.keyPath, 0o700)
        #expect(throws: CertificateError.fileUnreadable(path: directory.keyPath, errno: EISDIR)) {
            try directory.read(directory.keyPath)
        }
        try temporary.write(
            [UInt8](repeating: 0x41, count: CertificateDirectory.fileSizeLimit + 1), to: directory.certificatePath)
        #expect(throws: CertificateError.fileUnreadable(path: directory.certificatePath, errno: EFBIG)) {
            try directory.read(directory.certificatePath)
        }
    }

    /// Parents are made as `mkdir -p` would; the directory itself is private.
    @Test func createdWithParents() throws {
        let temporary = try TemporaryDirectory()
        let directory = CertificateDirectory(path: temporary.path + "/a/b/c")
        try directory.create()
        try directory.create()
        #expect(temporary.mode(temporary.path + "/a/b/c") == 0o700)
        #expect(temporary.mode(temporary.path + "/a") == 0o755)
    }
}
