import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The cache hands out values only for the very version of the file they were built from.
@Suite struct FileHeaderCacheTests {
    static let file = FileMetadata(name: "photo.jpg", kind: .file, size: 4096, modified: 1_700_000_000_123_456_789, inode: 77)

    @Test func valuesAreThoseOfTheFile() {
        let values = FileHeaderCache().values(for: Self.file, forceDownload: false)
        #expect(values.contentType == "image/jpeg")
        #expect(values.contentDisposition == contentDispositionValue(filename: "photo.jpg", disposition: .inline))
        #expect(values.validators.etag == FileResponse.etag(for: Self.file))
        #expect(values.validators.lastModified == HTTPDate.format(1_700_000_000))
        #expect(values.validators.modifiedSeconds == 1_700_000_000)
    }

    @Test func activeContentAndDownloadAreAttachments() {
        let cache = FileHeaderCache()
        var page = Self.file
        page.name = "page.html"
        #expect(cache.values(for: page, forceDownload: false).contentDisposition.hasPrefix("attachment;"))
        #expect(cache.values(for: Self.file, forceDownload: true).contentDisposition.hasPrefix("attachment;"))
        #expect(cache.values(for: Self.file, forceDownload: false).contentDisposition.hasPrefix("inline;"))
    }

    @Test func theSameVersionIsServedFromTheCache() {
        let cache = FileHeaderCache()
        let first = cache.values(for: Self.file, forceDownload: false)
        #expect(cache.values(for: Self.file, forceDownload: false) === first)
    }

    @Test func namesCompareByBytes() {
        let cache = FileHeaderCache()
        var composed = Self.file
        composed.name = "caf\u{E9}.txt"
        var decomposed = Self.file
        decomposed.name = "cafe\u{301}.txt"
        #expect(cache.values(for: composed, forceDownload: false).contentDisposition.hasSuffix("caf%C3%A9.txt"))
        #expect(cache.values(for: decomposed, forceDownload: false).contentDisposition.hasSuffix("cafe%CC%81.txt"))
    }

    static let sha256 = String(repeating: "ab", count: 32)

    /// A file uploaded here has its SHA-256 recorded: the 200's serialized headers carry it
    /// as Repr-Digest (so a download of it copies one block), a 304's do not.
    @Test func theRecordedSHA256IsInTheWholeFilesHeadersOnly() throws {
        let values = FileHeaderCache().values(for: Self.file, sha256: Self.sha256, forceDownload: false)
        let digest = SHA256Text.reprDigest(try #require(SHA256Text.bytes(hex: Self.sha256)))
        #expect(values.reprDigest == digest)
        #expect(values.identityHeaders.headers[.reprDigest] == digest)
        #expect(values.identityHeaders.fieldBlock == ResponseHeadSerializer.fieldBlock(of: values.identityHeaders.headers))
        #expect(values.conditionalHeaders.headers[.reprDigest] == nil)
        #expect(values.conditionalHeaders.headers.count == values.identityHeaders.headers.count - 1)
        let unhashed = FileHeaderCache().values(for: Self.file, forceDownload: false)
        #expect(unhashed.reprDigest == nil && unhashed.identityHeaders.headers[.reprDigest] == nil)
        let malformed = FileHeaderCache().values(for: Self.file, sha256: "not hex", forceDownload: false)
        #expect(malformed.reprDigest == nil && malformed.identityHeaders.headers[.reprDigest] == nil)
    }

    /// Setting the xattr moves no time the cache compares: the digest is part of the key.
    @Test func aDigestRecordedLaterBuildsFreshValues() {
        let cache = FileHeaderCache()
        let before = cache.values(for: Self.file, forceDownload: false)
        let after = cache.values(for: Self.file, sha256: Self.sha256, forceDownload: false)
        #expect(after !== before)
        #expect(after.reprDigest != nil)
        #expect(cache.values(for: Self.file, sha256: Self.sha256, forceDownload: false) === after)
    }

    @Test(arguments: 0..<5)
    func anyChangeOfTheFileBuildsFreshValues(_ change: Int) {
        let cache = FileHeaderCache()
        let first = cache.values(for: Self.file, forceDownload: false)
        var changed = Self.file
        var forceDownload = false
        switch change {
        case 0: changed.size += 1
        case 1: changed.modified += 1
        case 2: changed.inode += UInt64(FileHeaderCache.slotCount)  // same slot, another file
        case 3: changed.name = "photo2.jpg"
        default: forceDownload = true
        }
        let second = cache.values(for: changed, forceDownload: forceDownload)
        #expect(second !== first)
        #expect(second.validators.etag == FileResponse.etag(for: changed))
        #expect(second.validators.lastModified == HTTPDate.format(changed.modified / 1_000_000_000))
        #expect(
            second.contentDisposition
                == contentDispositionValue(
                    filename: changed.name, disposition: forceDownload ? .attachment : .inline))
    }
}
