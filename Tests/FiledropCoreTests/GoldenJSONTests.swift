import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The server's JSON answers are byte for byte the golden files in `Tests/Fixtures/json`,
/// which the client's and the page's tests decode too: the wire format is declared there once.
@Suite struct GoldenJSONTests {
    static func golden(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/json").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    static func body(_ response: Response?) -> String {
        guard case .bytes(let bytes)? = response?.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let seconds: Int64 = 1_700_000_000
    /// SHA-256 of "hello\n".
    static let sha256 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"

    @Test func listing() throws {
        let entries = [
            FileMetadata(
                name: "say \"hi\"\u{2028}\u{1B}.txt", kind: .file, size: 0, modified: 1_709_208_000 * 1_000_000_000, inode: 3),
            FileMetadata(name: "Grüße 😀.txt", kind: .file, size: 1_234_567, modified: Self.seconds * 1_000_000_000, inode: 2),
            FileMetadata(name: "2024", kind: .directory, size: 4096, modified: Self.seconds * 1_000_000_000, inode: 1),
        ]
        let listing = DirectoryListing(
            path: StoragePath(checkedComponents: ["photos"]), entries: entries, title: "t", query: nil,
            recordedSHA256s: { files in
                // Asked for files only (the folder "2024" never carries one); one file has a hash.
                files.contains { $0.name == "2024" }
                    ? files.map { _ in nil } : files.map { $0.name == "Grüße 😀.txt" ? Self.sha256 : nil }
            })
        let response = listing.response(format: .json)
        #expect(response.headers[.contentType] == "application/json")
        #expect(Self.body(response) == (try Self.golden("listing.json")))
    }

    @Test func error() throws {
        let response = Response.error(.badRequest("The name \"a\\b\" must not contain \"/\" or \"\\\"."), format: .json)
        #expect(response.status == .badRequest)
        #expect(response.headers[.contentType] == "application/json")
        #expect(Self.body(response) == (try Self.golden("error-400.json")))
    }

    @Test func upload() throws {
        var report = UploadReport()
        report.stored = [
            StoredFile(
                path: StoragePath(checkedComponents: ["photos", "Grüße 😀.txt"]), size: 1_234_567, crc32: 0x0A1B_2C3D,
                sha256: Self.sha256)
        ]
        let response = report.response(format: .json)
        #expect(response.status == .created)
        #expect(response.headers[.location] == "/files/photos/Gr%C3%BC%C3%9Fe%20%F0%9F%98%80.txt")
        #expect(Self.body(response) == (try Self.golden("upload.json")))
    }

    /// A form stopped after its first part: the success shape, the sentence and the status.
    @Test func uploadStopped() throws {
        var report = UploadReport()
        report.stored = [
            StoredFile(
                path: StoragePath(checkedComponents: ["photos", "Grüße 😀.txt"]), size: 1_234_567, crc32: 0x0A1B_2C3D,
                sha256: Self.sha256)
        ]
        report.stopped = (2, .badRequest("The upload ended before the end of the form data; it was probably interrupted."))
        let response = try #require(report.stoppedResponse(format: .json))
        #expect(response.status == .badRequest)
        #expect(response.headers[.location] == nil)
        #expect(Self.body(response) == (try Self.golden("upload-stopped.json")))
    }

    @Test func configuration() throws {
        var configuration = Configuration()
        configuration.title = "Family \"photos\""
        configuration.maxUploadSize = 2_000_000_000
        // Opened on the machine itself: the phone is sent to the first LAN address.
        let lan = PhoneAddress(lanURLs: ["http://192.168.1.5:8080/", "http://[fd00::5]:8080/", "http://127.0.0.1:8080/"])
        let server = InMemoryServer(configuration: configuration, phoneAddress: lan)
        let response = server.send(InMemoryServer.head(.get, "/config.json", host: "127.0.0.1:8080"))
        #expect(Self.body(response) == (try Self.golden("config.json")))
    }

    @Test func configurationOverHTTPS() throws {
        let response = HTTPSFixture().answer(HTTPSFixture.head(.get, "/config.json", host: "192.168.1.5:8443"), secure: true)
        #expect(Self.body(response) == (try Self.golden("config-https.json")))
    }
}
