import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// multipart/byteranges framing (RFC 9110 §14.6, RFC 2046 §5.1.1): part headers as bytes,
/// contents as file regions, and an exact length ahead.
@Suite struct MultipartByteRangesBodyTests {
    final class FakeHandle: OpenFileHandle {
        var descriptor: Int32 { 99 }
    }

    /// The body with each file region replaced by those bytes of `file`, as the wire carries it.
    static func render(_ body: MultipartByteRangesBody, file: [UInt8]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try body.nextChunk() {
            switch chunk {
            case .bytes(let piece):
                bytes += piece
            case .file(let region):
                #expect(region.file.descriptor == 99)
                bytes += file[Int(region.offset)..<Int(region.offset + region.length)]
            }
        }
        return bytes
    }

    @Test func framesTwoParts() throws {
        let file = Array("0123456789abcdefghij".utf8)
        let body = MultipartByteRangesBody(
            file: FakeHandle(), size: 20, contentType: "text/plain", ranges: [0...2, 15...19], boundary: "B0UND")
        let expected =
            "--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-2/20\r\n\r\n012"
            + "\r\n--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 15-19/20\r\n\r\nfghij"
            + "\r\n--B0UND--\r\n"
        let rendered = try Self.render(body, file: file)
        #expect(String(decoding: rendered, as: UTF8.self) == expected)
        #expect(body.knownLength == UInt64(rendered.count))
        #expect(body.contentType == "multipart/byteranges; boundary=B0UND")
        #expect(try body.nextChunk().map { _ in true } == nil)
    }

    @Test func contentIsNeverCopied() throws {
        let body = MultipartByteRangesBody(
            file: FakeHandle(), size: 1 << 40, contentType: "application/octet-stream",
            ranges: [0...(1 << 30), (1 << 39)...((1 << 40) - 1)], boundary: "x")
        var regions: [FileRegion] = []
        var headerBytes = 0
        while let chunk = try body.nextChunk() {
            switch chunk {
            case .bytes(let piece): headerBytes += piece.count
            case .file(let region): regions.append(region)
            }
        }
        #expect(regions.map(\.offset) == [0, 1 << 39])
        #expect(regions.map(\.length) == [(1 << 30) + 1, 1 << 39])
        #expect(body.knownLength == UInt64(headerBytes) + (1 << 30) + 1 + (1 << 39))
    }

    @Test func randomBoundariesDiffer() {
        let first = MultipartByteRangesBody.randomBoundary()
        let second = MultipartByteRangesBody.randomBoundary()
        #expect(first != second)
        // RFC 2046 §5.1.1: at most 70 characters of bchars.
        #expect(
            first.count == 41 && first.count <= 70
                && first.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) })
    }
}
