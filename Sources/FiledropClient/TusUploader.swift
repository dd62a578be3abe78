import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads one file with tus 1.0 (tus.io protocol.md): creation (`POST /files/` with
/// Upload-Length and the name in Upload-Metadata), then PATCHes of `tusChunkSize` bytes at
/// Upload-Offset. A PATCH that fails on the network is retried after asking the server
/// (HEAD) how much it kept; the upload URL is remembered in the `TusResumeStore` until the
/// upload is complete, so a later call resumes instead of starting over.
struct TusUploader {
    static let version = "1.0.0"
    static let retryDelays: [Double] = [0.5, 1, 2, 4]

    let client: FiledropClient
    let file: URL
    let size: Int64
    let name: String
    let meter: ProgressMeter

    func run() async throws(FiledropClientError) -> FiledropClient.UploadResult {
        let key = resumeKey()
        var upload: (url: URL, offset: Int64)
        // The stored file's SHA-256, from the Repr-Digest of the request that completed it.
        var sha256: String?
        if let key, let stored = client.resumeStore?.uploadURL(for: key), let offset = try await storedOffset(stored) {
            upload = (stored, offset)
        } else {
            let created = try await create()
            upload = (created.url, 0)
            sha256 = created.sha256
            if let key { client.resumeStore?.remember(upload.url, for: key) }
        }
        let resumedFrom = upload.offset
        meter.start(at: upload.offset, total: size)
        var failures = 0
        while upload.offset < size {
            do throws(FiledropClientError) {
                (upload.offset, sha256) = try await patch(upload.url, at: upload.offset)
                failures = 0
            } catch {
                switch error {
                case .network, .refused(status: 409, _), .refused(status: 423, _), .refused(status: 500..., _):
                    // The network or the server hiccuped: wait, ask what it has, go on from there.
                    guard failures < Self.retryDelays.count else { throw error }
                    try await Self.pause(Self.retryDelays[failures])
                    failures += 1
                    if let offset = try? await offset(of: upload.url) { upload.offset = offset }
                case .refused(status: 404, _), .refused(status: 410, _):
                    if let key { client.resumeStore?.forget(key) }
                    throw error
                default:
                    throw error
                }
            }
        }
        meter.update(size, force: true)
        if let key { client.resumeStore?.forget(key) }
        return FiledropClient.UploadResult(name: name, size: size, resumedFrom: resumedFrom, sha256: sha256)
    }

    /// protocol.md "Creation": the Location of the new upload. An empty file is complete here,
    /// and its answer carries the stored file's Repr-Digest.
    private func create() async throws(FiledropClientError) -> (url: URL, sha256: String?) {
        var request = tusRequest(client.makeRequest(path: "/files/", method: "POST"))
        request.setValue(String(size), forHTTPHeaderField: "Upload-Length")
        request.setValue("filename \(Data(name.utf8).base64EncodedString())", forHTTPHeaderField: "Upload-Metadata")
        let result = try await client.send(request)
        guard result.response.statusCode == 201, let location = result.response.value(forHTTPHeaderField: "Location"),
            let url = URL(string: location, relativeTo: client.baseURL)?.absoluteURL
        else {
            throw .invalidResponse("tus creation answered \(result.response.statusCode) without a Location")
        }
        return (url, result.response.value(forHTTPHeaderField: "Repr-Digest").flatMap(FiledropClient.sha256(reprDigest:)))
    }

    /// protocol.md "HEAD": the offset of a remembered upload, nil when the server no longer
    /// has it (finished, expired, another server) so a new one is created.
    private func storedOffset(_ url: URL) async throws(FiledropClientError) -> Int64? {
        do throws(FiledropClientError) {
            let offset = try await offset(of: url)
            return offset <= size ? offset : nil
        } catch {
            if case .refused = error { return nil }
            throw error
        }
    }

    private func offset(of url: URL) async throws(FiledropClientError) -> Int64 {
        let result = try await client.send(tusRequest(client.makeRequest(url: url, method: "HEAD")))
        guard let offset = result.response.value(forHTTPHeaderField: "Upload-Offset").flatMap({ Int64($0) }) else {
            throw .invalidResponse("tus HEAD without Upload-Offset")
        }
        if let length = result.response.value(forHTTPHeaderField: "Upload-Length").flatMap({ Int64($0) }), length != size {
            throw .refused(status: 409, message: "the server's upload has another length")
        }
        return offset
    }

    /// protocol.md "PATCH": one chunk from `offset`; returns the server's new offset, and the
    /// stored file's SHA-256 from the `Repr-Digest` of the PATCH that completed it.
    private func patch(_ url: URL, at offset: Int64) async throws(FiledropClientError) -> (Int64, String?) {
        let length = min(client.tusChunkSize, size - offset)
        var request = tusRequest(client.makeRequest(url: url, method: "PATCH"))
        request.setValue(String(offset), forHTTPHeaderField: "Upload-Offset")
        let body = StreamedBody.fileRange(file, offset: offset, length: length, contentType: "application/offset+octet-stream")
        let result = try await client.send(
            request, body: body,
            progress: .init(meter: meter, base: offset, fileLength: length))
        guard let newOffset = result.response.value(forHTTPHeaderField: "Upload-Offset").flatMap({ Int64($0) }),
            newOffset > offset || length == 0
        else {
            throw .invalidResponse("tus PATCH answered \(result.response.statusCode) without a new Upload-Offset")
        }
        return (newOffset, result.response.value(forHTTPHeaderField: "Repr-Digest").flatMap(FiledropClient.sha256(reprDigest:)))
    }

    private func tusRequest(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(Self.version, forHTTPHeaderField: "Tus-Resumable")
        return request
    }

    private func resumeKey() -> TusResumeStore.Key? {
        guard client.resumeStore != nil,
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return TusResumeStore.Key(
            server: client.baseURL.absoluteString, path: file.standardizedFileURL.path,
            size: size, modified: modified.timeIntervalSince1970)
    }

    private static func pause(_ seconds: Double) async throws(FiledropClientError) {
        do {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        } catch {
            throw .cancelled
        }
    }
}
