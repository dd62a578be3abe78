import Synchronization

/// The header values of a download that depend on the file alone: Content-Type,
/// Content-Disposition, ETag and Last-Modified, and the whole header section of the usual
/// answer (200, the whole file, not encoded) ready with its bytes. Built once per version of
/// a file, then shared by every download of that version.
final class FileHeaderValues: Sendable {
    let name: String
    let inode: UInt64
    let size: UInt64
    let modified: Int64
    let forceDownload: Bool
    let serverCompresses: Bool

    let contentType: String
    let contentDisposition: String
    let validators: FileValidators
    /// The headers `FileResponse.make` gives a download sent whole and unencoded, serialized:
    /// a 200, 304 or 412 for this version needs no field added and no field written.
    let identityHeaders: SerializedHeaders

    /// Everything from `metadata`: the values are a function of the fields kept above, which
    /// is what lets `FileHeaderCache` hand them out again.
    /// `serverCompresses` (`ResponseCompression.serverCompresses`): a compressible file may go
    /// gzip to some client, so even the identity headers carry `Vary: Accept-Encoding`.
    init(_ metadata: FileMetadata, forceDownload: Bool, serverCompresses: Bool) {
        name = metadata.name
        inode = metadata.inode
        size = metadata.size
        modified = metadata.modified
        self.forceDownload = forceDownload
        self.serverCompresses = serverCompresses
        contentType = MediaTypes.type(forFileName: metadata.name)
        let attachment = forceDownload || MediaTypes.isActiveContent(contentType)
        contentDisposition = contentDispositionValue(filename: metadata.name, disposition: attachment ? .attachment : .inline)
        validators = FileValidators(metadata)
        var headers = FileDownload.downloadFields(contentDisposition: contentDisposition)
        if serverCompresses && ResponseCompression.mayGzipFile(contentType: contentType, size: metadata.size, cached: false) {
            headers.addVary("Accept-Encoding")
        }
        FileResponse.addFileFields(to: &headers, contentType: contentType, etag: validators.etag,
                                   lastModified: validators.lastModified, cacheControl: FileDownload.cacheControl)
        identityHeaders = SerializedHeaders(headers)
    }

    /// True while `metadata` still describes the version these values were built for. Names
    /// compare by bytes, not by `==`: two hard links named `é` composed and decomposed are
    /// equal Strings but need different `filename*` bytes.
    func describe(_ metadata: FileMetadata, forceDownload: Bool, serverCompresses: Bool) -> Bool {
        inode == metadata.inode && size == metadata.size && modified == metadata.modified
            && self.forceDownload == forceDownload && self.serverCompresses == serverCompresses && Self.sameBytes(name, metadata.name)
    }

    /// `a.utf8.elementsEqual(b.utf8)` on contiguous bytes: iterating two UTF8Views costs
    /// more than the rest of a cache hit together.
    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.withUTF8Bytes { left in
            b.withUTF8Bytes { right in
                guard left.count == right.count else { return false }
                for i in 0..<left.count where left[i] != right[i] { return false }
                return true
            }
        }
    }
}

/// `FileHeaderValues` of recently downloaded files, one slot per inode modulo the slot count:
/// a file fetched again and again (a page's images, a script polling) costs a lookup instead
/// of rebuilding the same Strings. An entry is used only while the file's name, inode, size
/// and modification time all still match the fresh metadata of the opened file, so it never
/// describes another version; a miss just builds the values and takes the slot.
final class FileHeaderCache: Sendable {
    static let slotCount = 64

    private let slots = Mutex<[FileHeaderValues?]>(Array(repeating: nil, count: FileHeaderCache.slotCount))

    init() {}

    /// The values for the file `metadata` describes, from the cache when it has them.
    func values(for metadata: FileMetadata, forceDownload: Bool, serverCompresses: Bool = false) -> FileHeaderValues {
        let slot = Int(metadata.inode % UInt64(Self.slotCount))
        if let cached = slots.withLock({ $0[slot] }), cached.describe(metadata, forceDownload: forceDownload, serverCompresses: serverCompresses) {
            return cached
        }
        // Built outside the lock; two threads missing at once both build, and one value stays.
        let fresh = FileHeaderValues(metadata, forceDownload: forceDownload, serverCompresses: serverCompresses)
        slots.withLock { $0[slot] = fresh }
        return fresh
    }
}
