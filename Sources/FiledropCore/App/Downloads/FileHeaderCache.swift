import FiledropHTTP
import Synchronization

/// The header values of a download that depend on the file alone: Content-Type,
/// Content-Disposition, ETag, Last-Modified and Repr-Digest, and the whole header section of
/// the usual answer (200, the whole file, not encoded) ready with its bytes. Built once per
/// version of a file, then shared by every download of that version.
final class FileHeaderValues: Sendable {
    let name: String
    let inode: UInt64
    let size: UInt64
    let modified: Int64
    let forceDownload: Bool
    let serverCompresses: Bool
    /// The SHA-256 recorded with the file (lowercase hex), as `OpenedFile.sha256` had it.
    let sha256: String?

    let contentType: String
    let contentDisposition: String
    let validators: FileValidators
    /// RFC 9530 §3: `sha-256=:BASE64:` of the whole file, for a 200 and a 206 (it names the
    /// representation, whatever part is sent); nil when no valid SHA-256 is recorded.
    let reprDigest: String?
    /// The headers `FileResponse.make` gives a download sent whole and unencoded, Repr-Digest
    /// included, serialized: a 200 for this version needs no field added and no field written.
    let identityHeaders: SerializedHeaders
    /// The same without Repr-Digest, for a 304 or 412 (RFC 9110 §15.4.5: a 304 carries no
    /// representation metadata beyond what identifies the version).
    let conditionalHeaders: SerializedHeaders

    /// Everything from `metadata`: the values are a function of the fields kept above, which
    /// is what lets `FileHeaderCache` hand them out again.
    /// `serverCompresses` (`ResponseCompression.serverCompresses`): a compressible file may go
    /// gzip to some client, so even the identity headers carry `Vary: Accept-Encoding`.
    init(_ metadata: FileMetadata, sha256: String?, forceDownload: Bool, serverCompresses: Bool) {
        name = metadata.name
        inode = metadata.inode
        size = metadata.size
        modified = metadata.modified
        self.forceDownload = forceDownload
        self.serverCompresses = serverCompresses
        self.sha256 = sha256
        reprDigest = sha256.flatMap(SHA256Text.bytes(hex:)).map(SHA256Text.reprDigest)
        contentType = MediaTypes.type(forFileName: metadata.name)
        let attachment = forceDownload || MediaTypes.isActiveContent(contentType)
        contentDisposition = contentDispositionValue(filename: metadata.name, disposition: attachment ? .attachment : .inline)
        validators = FileValidators(metadata)
        var headers = FileDownload.downloadFields(contentDisposition: contentDisposition)
        if serverCompresses && ResponseCompression.mayGzipFile(contentType: contentType, size: metadata.size, cached: false) {
            headers.addVary("Accept-Encoding")
        }
        FileResponse.addFileFields(
            to: &headers, contentType: contentType, etag: validators.etag,
            lastModified: validators.lastModified, cacheControl: FileDownload.cacheControl)
        conditionalHeaders = SerializedHeaders(headers)
        if let reprDigest {
            headers.add(.reprDigest, reprDigest)
            identityHeaders = SerializedHeaders(headers)
        } else {
            identityHeaders = conditionalHeaders
        }
    }

    /// True while `metadata` still describes the version these values were built for. Names
    /// compare by bytes, not by `==`: two hard links named `é` composed and decomposed are
    /// equal Strings but need different `filename*` bytes.
    /// The recorded SHA-256 counts too: setting the xattr moves no time these compare.
    func describe(_ metadata: FileMetadata, sha256: String?, forceDownload: Bool, serverCompresses: Bool) -> Bool {
        inode == metadata.inode && size == metadata.size && modified == metadata.modified
            && self.forceDownload == forceDownload && self.serverCompresses == serverCompresses
            && name.hasSameBytes(as: metadata.name)
            && self.sha256 == sha256
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

    /// The values for the file `metadata` describes (with the SHA-256 recorded with it), from
    /// the cache when it has them.
    func values(for metadata: FileMetadata, sha256: String? = nil, forceDownload: Bool, serverCompresses: Bool = false)
        -> FileHeaderValues
    {
        let slot = Int(metadata.inode % UInt64(Self.slotCount))
        if let cached = slots.withLock({ $0[slot] }),
            cached.describe(metadata, sha256: sha256, forceDownload: forceDownload, serverCompresses: serverCompresses)
        {
            return cached
        }
        // Built outside the lock; two threads missing at once both build, and one value stays.
        let fresh = FileHeaderValues(metadata, sha256: sha256, forceDownload: forceDownload, serverCompresses: serverCompresses)
        slots.withLock { $0[slot] = fresh }
        return fresh
    }
}
