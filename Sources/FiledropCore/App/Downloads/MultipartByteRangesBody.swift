import FiledropHTTP

/// A `multipart/byteranges` body (RFC 9110 §14.6) for a request with several ranges: each
/// part's header goes out as bytes, each part's content as a file region sent with
/// sendfile(2), so nothing of the file passes through memory. The length is exact ahead,
/// so the response carries Content-Length.
final class MultipartByteRangesBody: ResponseBodySource {
    let boundary: String
    let knownLength: UInt64?
    private var pieces: [ResponseChunk]
    private var next = 0

    /// `ranges` must be non-empty, ascending and inside `file`; `boundary` must not contain
    /// anything but RFC 2046 §5.1.1 bchars (the caller picks random hex).
    init(file: any OpenFileHandle, size: UInt64, contentType: String, ranges: [ClosedRange<UInt64>], boundary: String) {
        self.boundary = boundary
        var pieces: [ResponseChunk] = []
        var length: UInt64 = 0
        for (index, range) in ranges.enumerated() {
            // RFC 2046 §5.1.1: the CRLF before a delimiter belongs to the delimiter.
            let header =
                (index == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Range: bytes \(range.lowerBound)-\(range.upperBound)/\(size)\r\n\r\n"
            let region = FileRegion(file: file, offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1)
            pieces.append(.bytes(Array(header.utf8)))
            pieces.append(.file(region))
            length += UInt64(header.utf8.count) + region.length
        }
        let closing = Array("\r\n--\(boundary)--\r\n".utf8)
        pieces.append(.bytes(closing))
        length += UInt64(closing.count)
        self.pieces = pieces
        self.knownLength = length
    }

    /// The Content-Type of the whole response.
    var contentType: String { "multipart/byteranges; boundary=\(boundary)" }

    func nextChunk() throws -> ResponseChunk? {
        guard next < pieces.count else { return nil }
        defer { next += 1 }
        return pieces[next]
    }

    /// 32 random hex digits (always 32, so HEAD and GET agree on Content-Length): a file
    /// would have to contain them by chance to break the framing.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return "filedrop-" + digits.joined()
    }
}
