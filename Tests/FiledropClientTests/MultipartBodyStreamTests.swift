import Foundation
import Testing

@testable import FiledropClient

/// The streamed multipart body: exact length, RFC 7578 framing, the same bytes whatever
/// the read size, and a read error instead of a silently short body.
@Suite struct MultipartBodyStreamTests {
    static func temporaryFile(_ content: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fdc-\(UUID().uuidString)")
        try content.write(to: url)
        return url
    }

    /// Reads the whole stream `readSize` bytes at a time, as URLSession's libcurl callback does.
    static func drain(_ stream: InputStream, readSize: Int) -> (Data, failed: Bool) {
        stream.open()
        defer { stream.close() }
        var result = Data()
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: readSize)
        defer { buffer.deallocate() }
        while stream.hasBytesAvailable {
            let count = stream.read(buffer, maxLength: readSize)
            if count < 0 { return (result, true) }
            if count == 0 { break }
            result.append(buffer, count: count)
        }
        return (result, false)
    }

    static func pattern(_ size: Int) -> Data {
        // Lines that look like delimiters (`--filedrop-...`) without being the real boundary.
        let line = Data("\r\n--filedrop-0000\r\n--\r\n".utf8)
        var data = Data()
        while data.count < size { data.append(line) }
        return data.prefix(size)
    }

    @Test(arguments: [0, 1, 1000, 700_001])
    func contentLengthIsExactAndFramingParses(size: Int) throws {
        let content = Self.pattern(size)
        let file = try Self.temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.multipartForm(file: file, size: Int64(size), fileName: "a.bin", boundary: "XyZ123")
        let (bytes, failed) = Self.drain(body.makeInputStream(), readSize: 16 * 1024)
        #expect(!failed)
        #expect(Int64(bytes.count) == body.contentLength)
        #expect(body.contentType == "multipart/form-data; boundary=XyZ123")
        let preamble = Data(
            "--XyZ123\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                .utf8)
        let epilogue = Data("\r\n--XyZ123--\r\n".utf8)
        #expect(bytes.prefix(preamble.count) == preamble)
        #expect(bytes.suffix(epilogue.count) == epilogue)
        #expect(bytes.dropFirst(preamble.count).dropLast(epilogue.count) == content)
    }

    @Test(arguments: [1, 7, 4096, 65_536, 1 << 20])
    func everyReadSizeGivesTheSameBytes(readSize: Int) throws {
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try Self.temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.multipartForm(file: file, size: Int64(content.count), fileName: "x", boundary: "b")
        let reference = Self.drain(body.makeInputStream(), readSize: 1 << 20).0
        let (bytes, failed) = Self.drain(body.makeInputStream(), readSize: readSize)
        #expect(!failed)
        #expect(bytes == reference)
        #expect(Int64(bytes.count) == body.contentLength)
    }

    @Test func randomBoundaryIsLegalAndNeverInTheData() throws {
        let boundary = StreamedBody.randomBoundary()
        // RFC 2046 §5.1.1: 1 to 70 characters.
        #expect(boundary.count <= 70)
        #expect(boundary.hasPrefix("filedrop-") && boundary.count == 41)
        #expect(StreamedBody.randomBoundary() != boundary)
        let content = Self.pattern(100_000)
        let file = try Self.temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.multipartForm(file: file, size: Int64(content.count), fileName: "p", boundary: boundary)
        let bytes = Self.drain(body.makeInputStream(), readSize: 8192).0
        let text = String(decoding: bytes, as: UTF8.self)
        // Exactly the opening and the closing delimiter.
        #expect(text.components(separatedBy: "--" + boundary).count == 3)
    }

    @Test func namesEscapeQuotesAndLineBreaksLikeBrowsers() throws {
        let file = try Self.temporaryFile(Data("x".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.multipartForm(file: file, size: 1, fileName: "a \"q\"\r\n😀.txt", boundary: "b")
        let text = String(decoding: Self.drain(body.makeInputStream(), readSize: 4096).0, as: UTF8.self)
        #expect(text.contains("filename=\"a %22q%22%0D%0A😀.txt\""))
    }

    @Test func fileRangeStreamsOnlyThatRange() throws {
        let content = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
        let file = try Self.temporaryFile(content)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.fileRange(file, offset: 1234, length: 5000, contentType: "application/offset+octet-stream")
        let (bytes, failed) = Self.drain(body.makeInputStream(), readSize: 333)
        #expect(!failed)
        #expect(bytes == content[1234..<6234])
        #expect(body.contentLength == 5000)
    }

    @Test func aFileThatShrankFailsTheReadInsteadOfEndingEarly() throws {
        let file = try Self.temporaryFile(Data(count: 1000))
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody.multipartForm(file: file, size: 2000, fileName: "f", boundary: "b")
        let stream = body.makeInputStream()
        let (bytes, failed) = Self.drain(stream, readSize: 4096)
        #expect(failed)
        #expect(bytes.count < 2000)
    }

    @Test func aMissingFileFailsTheRead() {
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        let body = StreamedBody.fileRange(missing, offset: 0, length: 10, contentType: "application/octet-stream")
        #expect(Self.drain(body.makeInputStream(), readSize: 4096).failed)
    }
}
