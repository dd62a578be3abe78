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

    /// Keeps `compressor` only when the client accepts gzip: most requests (curl, wget, a
    /// benchmark) then carry no copy of it.
    init(compressor: (any ContentCompressor)?, head: RequestHead) {
        clientAcceptsGzip = compressor != nil && (head.method == .get || head.method == .head)
            && AcceptEncoding.allowsGzip(head.headers[.acceptEncoding])
        self.compressor = clientAcceptsGzip ? compressor : nil
    }

    /// Whether any response to this request may go gzip-encoded.
    var isPossible: Bool { compressor != nil && clientAcceptsGzip }

    /// The encoding for a file response of `contentType` and `size`; `cacheKey` (web root
    /// files only) lets the gzip bytes be kept in memory.
    func fileEncoding(contentType: String, size: UInt64, cacheKey: String?, head: RequestHead) -> FileEncoding {
        guard let compressor, clientAcceptsGzip, MediaTypes.isCompressible(contentType),
              size >= UInt64(Self.smallestCompressedBody), !head.headers.contains("range") else { return .identity }
        if let cacheKey { return .gzipCached(compressor, cacheKey: cacheKey) }
        return size <= Self.largestStreamedFile ? .gzipStreamed(compressor) : .identity
    }

    /// gzip for a generated body (listing, error, JSON) held in memory.
    func apply(to response: Response) -> Response {
        guard let compressor, clientAcceptsGzip, response.status == .ok, case .bytes(let bytes) = response.body,
              bytes.count >= Self.smallestCompressedBody, !response.headers.contains("content-encoding"),
              let type = response.headers[.contentType], MediaTypes.isCompressible(type) else { return response }
        var compressed = response
        compressed.body = .bytes(compressor.gzip(bytes))
        compressed.headers.add(name: "Content-Encoding", value: "gzip")
        compressed.headers.addVary("Accept-Encoding")
        return compressed
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
        let existing = tokens(for: "vary")
        guard !existing.contains(token.lowercased()) else { return }
        let merged = values(for: "vary") + [token]
        replaceOrAdd(name: "Vary", value: merged.joined(separator: ", "))
    }
}
