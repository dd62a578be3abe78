import Foundation
import Testing

@testable import FiledropClient

/// `known_servers`: what is read (comments, notes, CRLF, IPv6), what is skipped and
/// reported, which line an entry came from, and how the file is created and appended to.
@Suite struct KnownServersTests {
    static let caPrint = CertificateFingerprint(digest: [UInt8](repeating: 0xA1, count: 32))!
    static let leafPrint = CertificateFingerprint(digest: [UInt8](repeating: 0x4F, count: 32))!

    @Test func readsEntriesWithTheirLineNumbers() {
        let text = """
            # filedrop known servers
            192.168.1.20:8443 \(Self.caPrint)  laptop

            [FE80::1]:8443\t\(Self.leafPrint.hexString)\r
            Laptop.Local:8443 \(Self.caPrint.hexString.uppercased())
            """
        let known = KnownServers(parsing: text)
        #expect(known.malformedLines.isEmpty)
        #expect(
            known.entries == [
                .init(address: "192.168.1.20:8443", fingerprint: Self.caPrint, line: 2),
                .init(address: "[fe80::1]:8443", fingerprint: Self.leafPrint, line: 4),
                .init(address: "laptop.local:8443", fingerprint: Self.caPrint, line: 5),
            ])
        #expect(known.entries(for: "LAPTOP.local:8443").map(\.line) == [5])
        #expect(known.entries(for: "laptop.local:443").isEmpty)
    }

    @Test(arguments: [
        "192.168.1.20 \(caPrint)", "192.168.1.20:8443", "192.168.1.20:8443 not-a-fingerprint",
        ":8443 \(caPrint)", "host:99999 \(caPrint)", "::1:8443 \(caPrint)", "[]:8443 \(caPrint)",
        "https://host:8443 \(caPrint)",
    ])
    func skipsAndReportsMalformedLines(_ line: String) {
        let known = KnownServers(parsing: "# header\n\(line)\nok:1 \(Self.caPrint)\n")
        #expect(known.malformedLines == [2])
        #expect(known.entries.map(\.address) == ["ok:1"])
    }

    @Test func writtenLinesReadBack() {
        let line = KnownServers.line(address: "[::1]:8443", fingerprint: Self.caPrint, note: "/CN=filedrop CA\nx")
        #expect(line == "[::1]:8443 \(Self.caPrint)  /CN=filedrop CAx\n")
        #expect(KnownServers(parsing: line).entries == [.init(address: "[::1]:8443", fingerprint: Self.caPrint, line: 1)])
    }

    @Test(arguments: [
        ("https://192.168.1.20:8443/x", "192.168.1.20:8443"), ("https://Laptop.local", "laptop.local:443"),
        ("https://[::1]:8443", "[::1]:8443"), ("http://host", "host:80"),
    ])
    func addressesComeFromURLs(_ url: String, _ address: String) {
        #expect(KnownServers.address(of: URL(string: url)!) == address)
    }

    @Test func fileFollowsXDGConfigHome() {
        #expect(
            KnownServers.defaultFile(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/me"]).path
                == "/x/config/filedrop/known_servers")
        #expect(
            KnownServers.defaultFile(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/me"]).path
                == "/home/me/.config/filedrop/known_servers")
        #expect(KnownServers.defaultFile(environment: ["HOME": "/home/me"]).path == "/home/me/.config/filedrop/known_servers")
    }

    @Test func appendingCreatesAPrivateDirectoryAndFile() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fdc-known-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let file = base.appendingPathComponent("filedrop/known_servers")
        #expect(try KnownServers.read(from: file).entries.isEmpty)

        try KnownServers.append(address: "a:1", fingerprint: Self.caPrint, to: file)
        try KnownServers.append(address: "b:2", fingerprint: Self.leafPrint, note: "second", to: file)
        let known = try KnownServers.read(from: file)
        #expect(known.entries.map(\.address) == ["a:1", "b:2"])
        #expect(known.entries.map(\.line) == [2, 3])
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test func appendingAfterAHandEditWithoutNewlineKeepsLinesApart() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fdc-known-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let file = base.appendingPathComponent("known_servers")
        try Data("a:1 \(Self.caPrint)".utf8).write(to: file)
        try KnownServers.append(address: "b:2", fingerprint: Self.leafPrint, to: file)
        #expect(try KnownServers.read(from: file).entries.map(\.address) == ["a:1", "b:2"])
    }
}
