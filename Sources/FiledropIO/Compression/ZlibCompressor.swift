import FiledropCore
import FiledropHTTP
import Synchronization

/// The core's `ContentCompressor` on zlib: gzip for responses (whole, cached or streamed)
/// and streamed ZIP archives.
public final class ZlibCompressor: ContentCompressor {
    /// Web root files up to this size have their gzip form kept in memory.
    static let largestCachedFile: UInt64 = 1 << 20
    /// At most this many cached bodies (the page has a handful of assets; old ETags of
    /// replaced files make up the rest).
    static let cacheCapacity = 32

    private let cache = Mutex<[String: [UInt8]]>([:])

    public init() {}

    public func gzip(_ bytes: [UInt8]) -> [UInt8] {
        Deflater.compressed(bytes, format: .gzip)
    }

    public func cachedGzip(of region: FileRegion, cacheKey: String) -> [UInt8]? {
        guard region.length <= Self.largestCachedFile else { return nil }
        if let hit = cache.withLock({ $0[cacheKey] }) { return hit }
        var reader = FileRegionReader(region, pieceSize: Int(region.length))
        guard let bytes = try? reader.withNextPiece({ Array($0) }), UInt64(bytes.count) == region.length else { return nil }
        let compressed = gzip(bytes)
        cache.withLock { cache in
            if cache.count >= Self.cacheCapacity, let victim = cache.keys.first {
                cache.removeValue(forKey: victim)
            }
            cache[cacheKey] = compressed
        }
        return compressed
    }

    public func gzipStream(of region: FileRegion) -> any ResponseBodySource {
        GzipFileStream(region)
    }

    public func gzipStream(of source: any ResponseBodySource) -> any ResponseBodySource {
        GzipBodyStream(source)
    }

    public func zipStream(of directory: StoragePath, selecting names: Set<String>?, in storage: any Storage)
        -> any ResponseBodySource
    {
        ZipStream(directory: directory, selecting: names, storage: storage)
    }
}
