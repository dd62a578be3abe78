import Foundation
import Testing

@testable import FiledropCore

/// Real requests captured on a loopback listener (see Fixtures/multipart/README.md), parsed
/// whole, byte by byte and split at every offset.
@Suite struct MultipartFixtureTests {
    static let notes = "line one\r\nline two\n--not-a-boundary\r\n--\r\n\r\nend"
    static let unicodeName = "Prix €uro – été.txt"
    static let unicodeContent = "€ euro price list\n"
    static let quotedName = "say \"hi\".txt"
    static let quotedContent = "quoted \"content\"\n"

    /// The request head's Content-Type boundary and the body after the head.
    static func load(_ name: String) throws -> (boundary: String, body: [UInt8]) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/multipart").appendingPathComponent(name)
        let raw = try [UInt8](Data(contentsOf: url))
        let separator = bytes("\r\n\r\n")
        let headEnd = try #require((0..<raw.count - 3).first { Array(raw[$0..<$0 + 4]) == separator })
        let head = String(decoding: raw[..<headEnd], as: UTF8.self)
        let contentType = try #require(head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") })
        let mediaType = try #require(MediaType(parsing: String(contentType.dropFirst("content-type:".count))))
        #expect(mediaType.isMultipartFormData)
        return (try #require(mediaType.multipartBoundary), Array(raw[(headEnd + 4)...]))
    }

    @Test(arguments: [
        "chromium-156-three-files.http", "firefox-esr-153-three-files.http", "python-requests-2.34-three-files.http",
    ])
    func browserAndRequestsFormsWithAFolderField(_ fixture: String) throws {
        let (boundary, body) = try Self.load(fixture)
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == nil)
        #expect(outcome.sawEnd)
        #expect(outcome.parts.map(\.head.name) == ["relativePath", "files[]", "files[]", "files[]"])
        #expect(outcome.parts.map(\.head.filename) == [nil, "notes.txt", Self.unicodeName, Self.quotedName])
        #expect(
            outcome.parts.map(\.text) == [
                fixture.hasPrefix("python") ? "docs/2024" : "photos/2024",
                Self.notes, Self.unicodeContent, Self.quotedContent,
            ])
        #expect(outcome.parts.dropFirst().allSatisfy { $0.head.contentType == "text/plain" })
    }

    @Test func curlFourFilesIncludingBinary() throws {
        let (boundary, body) = try Self.load("curl-7.88-four-files.http")
        let outcome = feedMultipartThreeWays(body, boundary: boundary)
        #expect(outcome.failure == nil && outcome.sawEnd)
        #expect(outcome.parts.map(\.head.name) == ["file", "file", "file", "file"])
        #expect(outcome.parts.map(\.head.filename) == ["notes.txt", Self.unicodeName, Self.quotedName, "binary.bin"])
        let binary = (0..<512).map { UInt8($0 % 256) } + bytes("\r\n--\r\n-\r")
        #expect(
            outcome.parts.map(\.payload) == [bytes(Self.notes), bytes(Self.unicodeContent), bytes(Self.quotedContent), binary])
        #expect(outcome.parts[3].head.contentType == "application/octet-stream")
    }

    @Test func storedNamesOfFixtureFiles() throws {
        let policy = FileNamePolicy()
        #expect(try policy.storedName(from: Self.unicodeName) == Self.unicodeName)
        #expect(try policy.storedName(from: Self.quotedName) == Self.quotedName)
    }
}
