import FiledropHTTP

/// Decides, per request, whether a response goes gzip-encoded (RFC 9110 §8.4.1.3) and
/// applies it: only when the client accepts gzip, only for types that shrink
/// (`MediaTypes.isCompressible`), never for partial content (a Range names identity bytes).
struct ResponseCompression {
    /// Bodies smaller than this go as they are: the gzip header and trailer cost 18 bytes
    /// and tiny bodies fit in one packet anyway.
    static let smallestCompressedBody = 256
    /// Stored files larger than this go uncompressed: a streamed gzip has no Content-Length,
    /// so browsers could not show progress, and on a LAN the CPU is the slower side.
    static let largestStreamedFile: UInt64 = 32 << 20

    let compressor: (any ContentCompressor)?
    let clientAcceptsGzip: Bool
    /// The server compresses (it has a compressor) and the method is GET or HEAD: a response
    /// gzip could apply to then varies by Accept-Encoding, whatever this client accepts.
    let serverCompresses: Bool

    /// Keeps `compressor` only when the client accepts gzip: most requests (curl, wget, a
    /// benchmark) then carry no copy of it.
    init(compressor: (any ContentCompressor)?, head: borrowing RequestHead) {
        serverCompresses = compressor != nil && (head.method == .get || head.method == .head)
        clientAcceptsGzip =
            serverCompresses && head.headers.withValueBytes(of: .acceptEncoding, AcceptEncoding.allowsGzip) == true
        self.compressor = clientAcceptsGzip ? compressor : nil
    }

    /// Whether a file of `contentType` and `size` goes gzip-encoded to a client that takes
    /// gzip and sends no Range; `cached` for the web root's small files (any size is kept).
    static func mayGzipFile(contentType: String, size: UInt64, cached: Bool) -> Bool {
        MediaTypes.isCompressible(contentType) && size >= UInt64(smallestCompressedBody)
            && (cached || size <= largestStreamedFile)
    }

    /// RFC 9110 §12.5.5: true when some request for this file gets gzip, so that every
    /// variant of it (identity, gzip, 206, 304) carries `Vary: Accept-Encoding`.
    func variesByEncoding(contentType: String, size: UInt64, cached: Bool) -> Bool {
        serverCompresses && Self.mayGzipFile(contentType: contentType, size: size, cached: cached)
    }

    /// The encoding for a file response of `contentType` and `size`; `cacheKey` (web root
    /// files only) lets the gzip bytes be kept in memory. A Range always gets identity: the
    /// ranges count bytes of the file as stored, never of a gzip stream made on the fly.
    func fileEncoding(contentType: String, size: UInt64, cacheKey: String?, head: RequestHead) -> FileEncoding {
        guard let compressor, clientAcceptsGzip, Self.mayGzipFile(contentType: contentType, size: size, cached: cacheKey != nil),
            !head.headers.contains(.range)
        else { return .identity }
        if let cacheKey { return .gzipCached(compressor, cacheKey: cacheKey) }
        return .gzipStreamed(compressor)
    }

    /// Whether `apply` could gzip a generated response of `contentType` for some client.
    func variesByEncoding(generated contentType: String?) -> Bool {
        guard serverCompresses, let contentType else { return false }
        return MediaTypes.isCompressible(contentType)
    }

    /// gzip for a generated body (listing, error, JSON), held in memory or streamed (a big
    /// folder's listing). Every 200 it could apply to says `Vary: Accept-Encoding`, also when
    /// this one stays identity (the client takes no gzip, or the body is too small to gain).
    func apply(to response: Response) -> Response {
        guard response.status == .ok, !response.headers.contains(.contentEncoding),
            variesByEncoding(generated: response.headers[.contentType])
        else { return response }
        let compressed: ResponseBody?
        switch (response.body, compressor) {
        case (.bytes(let bytes), let compressor?) where clientAcceptsGzip && bytes.count >= Self.smallestCompressedBody:
            compressed = .bytes(compressor.gzip(bytes))
        case (.stream(let source), let compressor?) where clientAcceptsGzip:
            compressed = .stream(UnsafeTransfer(compressor.gzipStream(of: source.wrappedValue)))
        case (.bytes, _), (.stream, _):
            compressed = nil
        case (.empty, _), (.file, _):
            return response
        }
        var result = response
        result.headers.addVary("Accept-Encoding")
        guard let compressed else { return result }
        result.body = compressed
        result.headers.add(.contentEncoding, "gzip")
        return result
    }

    /// RFC 9110 §8.8.3: each representation has its own entity tag, so a cached gzip body
    /// never answers a conditional request for identity bytes (or the reverse).
    static func gzipETag(_ etag: String) -> String {
        guard etag.hasSuffix("\"") else { return etag }
        return String(etag.dropLast()) + "-gz\""
    }
}

/// How `FileResponse.make` encodes a file's bytes.
public enum FileEncoding: Sendable {
    case identity
    /// gzip kept in memory by the compressor under `cacheKey` (small web root assets).
    case gzipCached(any ContentCompressor, cacheKey: String)
    /// gzip compressed while it is sent.
    case gzipStreamed(any ContentCompressor)
}

extension HTTPHeaders {
    /// Adds `token` to the Vary field (one field, comma-separated; RFC 9110 §12.5.5).
    mutating func addVary(_ token: String) {
        let existing = tokens(for: .vary)
        guard !existing.contains(token.lowercased()) else { return }
        let merged = values(for: .vary) + [token]
        replaceOrAdd(.vary, merged.joined(separator: ", "))
    }
}
