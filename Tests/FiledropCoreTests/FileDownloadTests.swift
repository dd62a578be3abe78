import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Downloads answered with the headers kept per file version: the same status and fields as
/// those built field by field, the same bytes on the wire, and the ready bytes only where no
/// field is added (the whole file, unencoded).
@Suite struct FileDownloadTests {
    final class FakeHandle: OpenFileHandle {
        var descriptor: Int32 { 99 }
    }

    /// gzip that is never run: the tests look at heads only.
    final class FakeCompressor: ContentCompressor {
        final class NoBody: ResponseBodySource {
            var knownLength: UInt64? { nil }
            func nextChunk() throws -> ResponseChunk? { nil }
        }

        func gzip(_ bytes: [UInt8]) -> [UInt8] { bytes }
        func cachedGzip(of region: FileRegion, cacheKey: String) -> [UInt8]? { nil }
        func gzipStream(of region: FileRegion) -> any ResponseBodySource { NoBody() }
        func gzipStream(of source: any ResponseBodySource) -> any ResponseBodySource { source }
        func zipStream(of directory: StoragePath, selecting names: Set<String>?, in storage: any Storage)
            -> any ResponseBodySource
        { NoBody() }
    }

    static let modified: Int64 = 1_700_000_000_123_456_789

    static func file(_ name: String) -> OpenedFile {
        OpenedFile(
            handle: FakeHandle(), metadata: FileMetadata(name: name, kind: .file, size: 4096, modified: modified, inode: 4242))
    }

    /// A download request; the fields wrk and curl send, plus `extra`.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var method: HTTPMethod = .get
        var extra: HTTPHeaders = HTTPHeaders()
        var forceDownload = false
        var gzip = false
        var status: HTTPStatus
        var keepsBlock: Bool
        var description: String { "\(method) \(name) \(Array(extra)) -> \(status.code)" }
    }

    static let etag = FileResponse.etag(for: file("small.bin").metadata)

    static let cases: [Case] = [
        Case(name: "small.bin", status: .ok, keepsBlock: true),
        Case(name: "small.bin", forceDownload: true, status: .ok, keepsBlock: true),
        Case(name: "page.html", status: .ok, keepsBlock: true),
        Case(name: "drawing.svg", status: .ok, keepsBlock: true),
        Case(name: "caf\u{E9} \"1\".bin", status: .ok, keepsBlock: true),
        Case(name: "small.bin", method: .head, status: .ok, keepsBlock: true),
        Case(name: "small.bin", extra: ["If-None-Match": etag], status: .notModified, keepsBlock: true),
        Case(
            name: "small.bin", method: .head, extra: ["If-Modified-Since": HTTPDate.format(modified / 1_000_000_000)],
            status: .notModified, keepsBlock: true),
        Case(name: "small.bin", extra: ["If-Match": "\"stale\""], status: .preconditionFailed, keepsBlock: true),
        Case(name: "small.bin", extra: ["If-None-Match": "\"stale\""], status: .ok, keepsBlock: true),
        Case(name: "small.bin", extra: ["Range": "bytes=0-9"], status: .partialContent, keepsBlock: false),
        Case(name: "small.bin", extra: ["Range": "bytes=0-9,100-199"], status: .partialContent, keepsBlock: false),
        Case(name: "small.bin", extra: ["Range": "bytes=0-9", "If-Range": "\"stale\""], status: .ok, keepsBlock: true),
        Case(name: "small.bin", extra: ["Range": "bytes=5000-"], status: .rangeNotSatisfiable, keepsBlock: false),
        Case(name: "notes.txt", extra: ["Accept-Encoding": "gzip"], gzip: true, status: .ok, keepsBlock: false),
        Case(name: "notes.txt", extra: ["Accept-Encoding": "gzip"], status: .ok, keepsBlock: true),
        Case(
            name: "notes.txt", extra: ["Accept-Encoding": "gzip", "Range": "bytes=0-9"], gzip: true,
            status: .partialContent, keepsBlock: false),
    ]

    static func response(_ test: Case, cache: FileHeaderCache = FileHeaderCache()) -> (Response, RequestHead) {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8080", "User-Agent": "wrk", "Accept": "*/*"]
        for (name, value) in test.extra { headers.add(name: name, value: value) }
        let head = RequestHead(method: test.method, target: "/files/x", version: .http1_1, headers: headers)
        let compression = ResponseCompression(compressor: test.gzip ? FakeCompressor() : nil, head: head)
        let response = FileDownload.response(
            file(test.name), head: head, forceDownload: test.forceDownload,
            compression: compression, cache: cache)
        return (response, head)
    }

    @Test(arguments: cases)
    func theHeadIsTheSameWithAndWithoutTheBlock(_ test: Case) {
        let (response, _) = Self.response(test)
        #expect(response.status == test.status)
        #expect((response.fieldBlock != nil) == test.keepsBlock)
        let plain = Response(status: response.status, headers: response.headers, body: response.body)
        for (version, keepAlive) in SerializedHeadersTests.connections {
            #expect(
                SerializedHeadersTests.wire(response, version: version, keepAlive: keepAlive)
                    == SerializedHeadersTests.wire(plain, version: version, keepAlive: keepAlive))
        }
    }

    /// The kept headers are those `FileResponse.make` builds field by field for the file.
    @Test(arguments: cases.filter(\.keepsBlock))
    func theKeptHeadersAreTheBuiltOnes(_ test: Case) {
        let cache = FileHeaderCache()
        let (first, head) = Self.response(test, cache: cache)
        let (again, _) = Self.response(test, cache: cache)
        let values = cache.values(for: Self.file(test.name).metadata, forceDownload: test.forceDownload)
        let built = FileResponse.make(
            Self.file(test.name), head: head, contentType: values.contentType, cacheControl: "no-cache",
            extraHeaders: FileDownload.downloadFields(contentDisposition: values.contentDisposition))
        for response in [first, again] {
            #expect(response.status == built.status)
            #expect(response.headers == built.headers)
            #expect(response.fieldBlock == ResponseHeadSerializer.fieldBlock(of: built.headers))
        }
    }

    /// RFC 9110 §12.5.5: a file that goes gzip to some clients names Accept-Encoding in
    /// Vary on every variant - identity, gzip, 206 and 304 - and the gzip body offers no
    /// byte ranges (a Range is answered from the identity bytes).
    @Test func everyVariantOfACompressibleFileHasTheSameVary() {
        let cache = FileHeaderCache()
        let requests: [HTTPHeaders] = [
            [:], ["Accept-Encoding": "gzip"], ["Range": "bytes=0-9"], ["Accept-Encoding": "gzip", "Range": "bytes=0-9"],
            ["If-None-Match": Self.etag], ["Accept-Encoding": "gzip", "If-None-Match": ResponseCompression.gzipETag(Self.etag)],
        ]
        for extra in requests {
            var headers: HTTPHeaders = ["Host": "127.0.0.1:8080"]
            for (name, value) in extra { headers.add(name: name, value: value) }
            let head = RequestHead(method: .get, target: "/files/x", version: .http1_1, headers: headers)
            let compression = ResponseCompression(compressor: FakeCompressor(), head: head)
            let response = FileDownload.response(
                Self.file("notes.txt"), head: head, forceDownload: false, compression: compression, cache: cache)
            #expect(response.headers["Vary"] == "Accept-Encoding", "\(Array(extra))")
            let gzip = response.headers["ETag"]?.hasSuffix("-gz\"") == true
            #expect((response.headers["Accept-Ranges"] == nil) == gzip, "\(Array(extra))")
        }
        let binary = Self.response(Case(name: "small.bin", gzip: true, status: .ok, keepsBlock: true)).0
        #expect(binary.headers["Vary"] == nil)
    }

    @Test func aPlainDownloadsFields() {
        let (response, _) = Self.response(Self.cases[0])
        #expect(
            Array(response.headers).map(\.name) == [
                "Content-Disposition", "Content-Security-Policy", "Content-Type", "ETag", "Last-Modified", "Cache-Control",
                "Accept-Ranges",
            ])
        #expect(response.headers["Content-Security-Policy"] == SecurityPolicy.storedFile.contentSecurityPolicy)
        #expect(response.headers["ETag"] == Self.etag)
    }
}
