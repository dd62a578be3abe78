import FiledropCore
import FiledropHTTP

/// A generated body that is itself streamed (a listing of a big folder) gzip-compressed as
/// the connection pulls it: one deflate stream over the source's chunks, so memory stays at
/// zlib's window plus one chunk whatever the body's size.
final class GzipBodyStream: ResponseBodySource {
    private let source: any ResponseBodySource
    private let deflater = Deflater(format: .gzip)
    private var finished = false

    init(_ source: any ResponseBodySource) {
        self.source = source
    }

    var knownLength: UInt64? { nil }

    func nextChunk() throws -> ResponseChunk? {
        guard !finished else { return nil }
        var output: [UInt8] = []
        // A chunk can compress to nothing yet: pull on until zlib has something or the source ends.
        while output.isEmpty {
            guard let chunk = try source.nextChunk() else {
                deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0), finish: true, into: &output)
                finished = true
                break
            }
            try Self.withBytes(of: chunk) { deflater.compress($0, finish: false, into: &output) }
        }
        return .bytes(output)
    }

    private static func withBytes(of chunk: ResponseChunk, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        switch chunk {
        case .bytes(let bytes):
            bytes.withUnsafeBytes(body)
        case .file(let region):
            var reader = FileRegionReader(region)
            while try reader.withNextPiece({ piece in
                body(piece)
                return !piece.isEmpty
            }) {}
        }
    }
}
