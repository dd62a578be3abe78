import FiledropHTTP
import Foundation
import Testing

@testable import FiledropCore
@testable import FiledropIO

/// gzip on zlib: whole bodies, streamed file regions and the web root cache, each checked
/// by inflating the result with zlib.
@Suite struct CompressionTests {
    static let text = Array((1...20_000).map { "line \($0) of a compressible text\n" }.joined().utf8)

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Pulls a streamed body to the end, checking that no chunk is a file region.
    static func drain(_ source: any ResponseBodySource) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try source.nextChunk() {
            guard case .bytes(let piece) = chunk else {
                Issue.record("a compressed stream must yield bytes")
                return []
            }
            bytes += piece
        }
        return bytes
    }

    static func region(of bytes: [UInt8], in fixture: SaveDirectoryFixture, name: String = "f") throws -> FileRegion {
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.path + "/" + name))
        let file = try fixture.storage.open(StoragePath(checkedComponents: [name]))
        return FileRegion(file: file.handle, offset: 0, length: file.metadata.size)
    }

    @Test(arguments: [0, 1, 255, 65_536, 700_000])
    func wholeBodyRoundTrips(count: Int) {
        let bytes = Array(Self.text.prefix(count))
        let gzip = ZlibCompressor().gzip(bytes)
        #expect(gzip.prefix(2) == [0x1f, 0x8b])
        #expect(inflated(gzip, windowBits: 31) == bytes)
    }

    @Test func textShrinks() {
        #expect(ZlibCompressor().gzip(Self.text).count < Self.text.count / 5)
    }

    @Test(arguments: [0, 1, FileRegionReader.pieceSize - 1, FileRegionReader.pieceSize, FileRegionReader.pieceSize + 1, 3 << 20])
    func streamedRegionRoundTrips(count: Int) throws {
        let fixture = try SaveDirectoryFixture()
        // Random bytes mixed with text: both zlib paths (stored and Huffman blocks) run.
        let bytes = Array((Self.text + Self.randomBytes(count / 2) + Self.text).prefix(count))
        let region = try Self.region(of: bytes, in: fixture)
        let gzip = try Self.drain(ZlibCompressor().gzipStream(of: region))
        #expect(inflated(gzip, windowBits: 31) == bytes)
    }

    @Test func streamedRegionHonoursOffsetAndLength() throws {
        let fixture = try SaveDirectoryFixture()
        var region = try Self.region(of: Self.text, in: fixture)
        region.offset = 1000
        region.length = 300_000
        let gzip = try Self.drain(GzipFileStream(region))
        #expect(inflated(gzip, windowBits: 31) == Array(Self.text[1000..<301_000]))
    }

    @Test func cacheKeepsSmallFilesOnly() throws {
        let fixture = try SaveDirectoryFixture()
        let compressor = ZlibCompressor()
        let small = try Self.region(of: Array(Self.text.prefix(100_000)), in: fixture, name: "small")
        let first = try #require(compressor.cachedGzip(of: small, cacheKey: "small-1"))
        #expect(inflated(first, windowBits: 31) == Array(Self.text.prefix(100_000)))
        // Served from memory: the file changing on disk does not change a cached key.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: fixture.path + "/small"))
        #expect(compressor.cachedGzip(of: small, cacheKey: "small-1") == first)
        let limit = Int(ZlibCompressor.largestCachedFile)
        let atLimit = try Self.region(of: Array(repeating: 0x61, count: limit), in: fixture, name: "limit")
        #expect(compressor.cachedGzip(of: atLimit, cacheKey: "limit") != nil)
        let overLimit = try Self.region(of: Array(repeating: 0x61, count: limit + 1), in: fixture, name: "over")
        #expect(compressor.cachedGzip(of: overLimit, cacheKey: "over") == nil)
    }
}
