import Foundation
import Testing

@testable import FiledropClient

/// The client reads the server's JSON as the golden files in `Tests/Fixtures/json` declare
/// it; the server's tests check it sends exactly those bytes.
@Suite struct WireFormatTests {
    static func golden(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/json").appendingPathComponent(name)
        return try Data(contentsOf: url)
    }

    /// SHA-256 of "hello\n", as the golden files carry it.
    static let sha256 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"

    @Test func listing() throws {
        let listing = try JSONDecoder().decode(Listing.self, from: try Self.golden("listing.json"))
        #expect(listing.path == "photos/")
        #expect(
            listing.entries == [
                Listing.Entry(
                    name: "2024", type: .directory, size: nil, mtime: "2023-11-14T22:13:20Z", url: "/files/photos/2024/"),
                Listing.Entry(
                    name: "Grüße 😀.txt", type: .file, size: 1_234_567, mtime: "2023-11-14T22:13:20Z",
                    url: "/files/photos/Gr%C3%BC%C3%9Fe%20%F0%9F%98%80.txt", sha256: Self.sha256),
                Listing.Entry(
                    name: "say \"hi\"\u{2028}\u{1B}.txt", type: .file, size: 0, mtime: "2024-02-29T12:00:00Z",
                    url: "/files/photos/say%20%22hi%22%E2%80%A8%1B.txt"),
            ])
    }

    @Test func upload() throws {
        let result = try FiledropClient.storedFile(in: try Self.golden("upload.json"), size: 1_234_567, fallbackName: "sent.txt")
        #expect(
            result
                == FiledropClient.UploadResult(
                    name: "photos/Grüße 😀.txt", size: 1_234_567, resumedFrom: 0,
                    sha256: Self.sha256))
    }

    @Test func uploadOfAnotherSizeIsRefused() throws {
        let body = try Self.golden("upload.json")
        #expect(throws: FiledropClientError.self) {
            try FiledropClient.storedFile(in: body, size: 7, fallbackName: "sent.txt")
        }
    }

    /// A form refused after its file was stored: the file counts as sent; a refusal that
    /// stored nothing is the server's error.
    @Test func formStoppedAfterItsFile() throws {
        let stopped = try FiledropClient.formAnswer(
            status: 400, body: try Self.golden("upload-stopped.json"), size: 1_234_567,
            fallbackName: "sent.txt")
        #expect(stopped.name == "photos/Grüße 😀.txt")
        #expect(throws: FiledropClientError.refused(status: 400, message: "The name \"a\\b\" must not contain \"/\" or \"\\\"."))
        {
            try FiledropClient.formAnswer(status: 400, body: try Self.golden("error-400.json"), size: 1, fallbackName: "sent.txt")
        }
    }

    @Test func error() throws {
        let error = FiledropClientError.from(status: 400, body: try Self.golden("error-400.json"))
        #expect(error == .refused(status: 400, message: "The name \"a\\b\" must not contain \"/\" or \"\\\"."))
    }
}
