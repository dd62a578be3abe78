import FiledropCore
import Glibc
import Testing

/// packaging/filedrop.conf documents every file key with its default: uncommenting every
/// key line must give exactly the defaults, but for the one line the package sets
/// (`tls = auto`). password-hash, tls-cert, tls-key, on-upload, notify-url, mdns-name, localsend-pin and web-root show examples, not defaults. A test of
/// ConfigurationLoader against the shipped file, so it lives with the configuration tests.
@Suite struct ExampleConfigurationTests {
    /// Tests/FiledropCoreTests/<this file> -> the package root.
    static let path: String = {
        var root = Substring(#filePath)
        for _ in 0..<3 { root = root[..<root.lastIndex(of: "/")!] }
        return root + "/packaging/filedrop.conf"
    }()

    static func readExample() throws -> String {
        let file = try #require(fopen(path, "r"))
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func everyKeyAppearsOnceWithItsDefault() throws {
        let fileKeys = ConfigKey.all.filter(\.settableInFile).map(\.name)
        let lines = try Self.readExample().split(separator: "\n").map(String.init)
        let keyLines = lines.filter { line in fileKeys.contains { line.hasPrefix("#\($0) = ") } }
        #expect(keyLines.count == fileKeys.count)
        for key in fileKeys {
            #expect(keyLines.filter { $0.hasPrefix("#\(key) = ") }.count == 1, "key \(key)")
        }

        let uncommented = lines.map { line in
            let example = [
                "#password-hash", "#tls-cert", "#tls-key", "#on-upload = ", "#notify-url", "#mdns-name", "#localsend-pin",
                "#web-root",
            ].contains { line.hasPrefix($0) }
            return keyLines.contains(line) && !example ? String(line.dropFirst()) : line
        }.joined(separator: "\n")
        let command = try ConfigurationLoader.parse(
            arguments: ["--config", "/example.conf"],
            environment: ["STATE_DIRECTORY": "/var/lib/filedrop:/var/lib/filedrop-tls", "RUNTIME_DIRECTORY": "/run/filedrop"],
            readFile: { $0 == "/example.conf" ? uncommented : nil },
            fileExists: { $0 == "/usr/share/filedrop/web" })
        var expected = Configuration()
        expected.saveDirectory = "/var/lib/filedrop"
        expected.configFile = "/example.conf"
        expected.tls = .auto
        expected.tlsDirectory = "/var/lib/filedrop-tls"
        expected.controlSocket = "/run/filedrop/control.sock"
        #expect(command == .run(expected))
    }

    /// The comment above each key says "Restart to ..." exactly for the keys a reload
    /// does not apply.
    @Test func restartOnlyKeysSaySo() throws {
        let lines = try Self.readExample().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for key in ConfigKey.all where key.settableInFile {
            let index = try #require(lines.firstIndex { $0.hasPrefix("#\(key.name) = ") }, "key \(key.name)")
            var start = index
            while start > 0 && lines[start - 1].hasPrefix("#") { start -= 1 }
            let comment = lines[start..<index].joined(separator: " ").lowercased()
            #expect(comment.contains("restart to") == !key.appliesOnReload, "key \(key.name)")
        }
    }
}
