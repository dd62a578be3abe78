/// `GET /files/<dir>/`: the listing (HTML or JSON) or the `?zip` archive of a folder. Reading
/// a directory can take long (a folder of 100,000 files, a slow network file system), so
/// `response()` is blocking work for a worker thread; the loop only sends what it built.
struct DirectoryRead: Sendable {
    let path: StoragePath
    let zip: Bool
    let head: RequestHead
    let app: FiledropApp
    let compression: ResponseCompression

    /// Blocking: on a worker thread. Failures become their error response.
    func response() -> Response {
        do throws(HTTPError) {
            return try build()
        } catch {
            return .error(error, format: ResponseFormat(head: head))
        }
    }

    private func build() throws(HTTPError) -> Response {
        let storage = app.storage
        let metadata: FileMetadata?
        do {
            metadata = try storage.metadata(path)
        } catch {
            throw error.httpError
        }
        guard let metadata, metadata.kind == .directory else { throw .notFound }
        if zip {
            guard let compressor = app.compressor else { throw .notImplemented("ZIP downloads") }
            return ZipDownload.response(directory: path, storage: storage, title: app.configuration.title, compressor: compressor)
        }
        let entries: [FileMetadata]
        do {
            // Only names the download route accepts: a listed name must never be a dead link.
            entries = try storage.list(path).filter { entry in
                (try? app.store.names.storagePath(fromComponents: [entry.name])) != nil
            }
        } catch {
            throw error.httpError
        }
        let format = ResponseFormat(head: head)
        // The page never shows hashes: only the JSON form pays for reading them.
        let sha256s = format == .json ? storage.recordedSHA256s(path, names: entries.filter { $0.kind == .file }.map(\.name)) : [:]
        return DirectoryListing(path: path, entries: entries, title: app.configuration.title, query: head.query, modified: metadata.modified,
                                sha256s: sha256s)
            .response(format: format, head: head, compression: compression)
    }
}
