import FiledropHTTP

/// The zlib work the core asks for but cannot do itself (it stays free of C modules):
/// `FiledropIO.ZlibCompressor` implements it, tests may pass a fake. Injected into
/// `FiledropApp`; without one, responses go uncompressed and `?zip` is refused. Class-bound,
/// as `Storage`: every request copies it.
public protocol ContentCompressor: AnyObject, Sendable {
    /// RFC 1952 gzip of a whole, small body (a listing, an error page, `config.json`).
    func gzip(_ bytes: [UInt8]) -> [UInt8]
    /// gzip of a small file of the web root, cached by `cacheKey` (name and ETag), nil when
    /// the file is too big to cache or cannot be read.
    func cachedGzip(of region: FileRegion, cacheKey: String) -> [UInt8]?
    /// gzip of a file region, compressed as the client reads it with bounded memory.
    func gzipStream(of region: FileRegion) -> any ResponseBodySource
    /// gzip of a generated body that is streamed (a big folder's listing), chunk by chunk.
    func gzipStream(of source: any ResponseBodySource) -> any ResponseBodySource
    /// A ZIP archive of everything visible under `directory`, written as it is sent; with
    /// `selecting`, of only those entries of `directory` (and everything below them).
    func zipStream(of directory: StoragePath, selecting names: Set<String>?, in storage: any Storage) -> any ResponseBodySource
}
