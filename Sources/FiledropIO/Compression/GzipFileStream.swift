import FiledropCore
import FiledropHTTP

/// A file region gzip-compressed as the connection pulls it: one read buffer and one
/// deflate stream, whatever the file size. Length unknown ahead, so the body goes chunked.
final class GzipFileStream: ResponseBodySource {
    private var reader: FileRegionReader
    private let deflater = Deflater(format: .gzip)
    private var finished = false

    init(_ region: FileRegion) {
        reader = FileRegionReader(region)
    }

    var knownLength: UInt64? { nil }

    func nextChunk() throws -> ResponseChunk? {
        guard !finished else { return nil }
        var output: [UInt8] = []
        // Small or very compressible pieces can produce nothing yet: read on until zlib has
        // something to send or the file ends.
        while output.isEmpty {
            let ended = try reader.withNextPiece { piece in
                deflater.compress(piece, finish: piece.isEmpty, into: &output)
                return piece.isEmpty
            }
            if ended {
                finished = true
                break
            }
        }
        return .bytes(output)
    }
}
