import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// The page's own files: what `Accept-Ranges: bytes` promises holds (206, 416, If-Range),
/// and every variant of a compressible file names Accept-Encoding in Vary.
@Suite struct StaticSiteTests {
    /// A web root of one file, `name` (`app.js` unless said), of 4096 bytes.
    final class OneFileWebRoot: Storage {
        static let metadata = FileMetadata(name: "app.js", kind: .file, size: 4096, modified: 1_700_000_000_000_000_000, inode: 9)
        let name: String

        init(name: String = "app.js") {
            self.name = name
        }

        func createUpload(in directory: StoragePath, checksummed: Bool, durable: Bool) throws(StorageError) -> any UploadFile {
            throw .notAllowed
        }
        func recordedSHA256(_ path: StoragePath) -> String? { nil }
        func recordedSHA256s(_ directory: StoragePath, files: [FileMetadata]) -> [String?] { files.map { _ in nil } }
        func open(_ path: StoragePath) throws(StorageError) -> OpenedFile {
            guard path.components == [name] else { throw .notFound }
            return OpenedFile(handle: FileDownloadTests.FakeHandle(), metadata: Self.metadata)
        }
        func metadata(_ path: StoragePath) throws(StorageError) -> FileMetadata? { nil }
        func list(_ directory: StoragePath) throws(StorageError) -> [FileMetadata] { [] }
        func remove(_ path: StoragePath) throws(StorageError) { throw .notAllowed }
        func move(_ source: StoragePath, to destination: StoragePath, durable: Bool) throws(StorageError) { throw .notAllowed }
        func makeDirectory(_ path: StoragePath, durable: Bool) throws(StorageError) { throw .notAllowed }
        func availableSpace() -> UInt64? { nil }
    }

    static let etag = FileResponse.etag(for: OneFileWebRoot.metadata)

    static func response(_ extra: HTTPHeaders, name: String = "app.js") throws -> Response {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8080"]
        for (field, value) in extra { headers.add(name: field, value: value) }
        let head = RequestHead(method: .get, target: "/" + name, version: .http1_1, headers: headers)
        let compression = ResponseCompression(compressor: FileDownloadTests.FakeCompressor(), head: head)
        return try StaticSite.response(
            for: Substring(name), head: head, webRoot: OneFileWebRoot(name: name), compression: compression)
    }

    /// The installable page: the manifest under its own type (W3C Application Manifest), gzipped
    /// like the page's other text, and the service worker under the page's policy, which lets
    /// the page start a worker from our origin.
    @Test func theManifestAndTheServiceWorker() throws {
        let manifest = try Self.response(["Accept-Encoding": "gzip"], name: "manifest.webmanifest")
        #expect(manifest.headers["Content-Type"] == "application/manifest+json")
        #expect(manifest.headers["Content-Encoding"] == "gzip")
        let worker = try Self.response([:], name: "sw.js")
        #expect(worker.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(worker.headers["Content-Security-Policy"]?.contains("worker-src 'self'") == true)
    }

    @Test func aRangeOfAPageFileIsPartialContent() throws {
        let whole = try Self.response([:])
        #expect(whole.status == .ok)
        #expect(whole.headers["Accept-Ranges"] == "bytes")
        let part = try Self.response(["Range": "bytes=0-9", "Accept-Encoding": "gzip"])
        #expect(part.status == .partialContent)
        #expect(part.headers["Content-Range"] == "bytes 0-9/4096")
        #expect(part.headers["Content-Encoding"] == nil)
        #expect(try Self.response(["Range": "bytes=5000-"]).status == .rangeNotSatisfiable)
        #expect(try Self.response(["Range": "bytes=0-9", "If-Range": Self.etag]).status == .partialContent)
        #expect(try Self.response(["Range": "bytes=0-9", "If-Range": "\"stale\""]).status == .ok)
        #expect(try Self.response(["Range": "bytes=0-9", "If-Range": ResponseCompression.gzipETag(Self.etag)]).status == .ok)
    }

    @Test func theGzipVariantOffersNoRanges() throws {
        let gzip = try Self.response(["Accept-Encoding": "gzip"])
        #expect(gzip.headers["Content-Encoding"] == "gzip")
        #expect(gzip.headers["Accept-Ranges"] == nil)
    }

    @Test(
        arguments: [
            [:], ["Accept-Encoding": "gzip"], ["Range": "bytes=0-9"], ["If-None-Match": etag],
            ["Accept-Encoding": "gzip", "If-None-Match": ResponseCompression.gzipETag(etag)],
        ] as [HTTPHeaders])
    func everyVariantHasTheSameVary(extra: HTTPHeaders) throws {
        #expect(try Self.response(extra).headers["Vary"] == "Accept-Encoding")
    }
}
