import FiledropHTTP

/// `GET /files/<dir>/`: the listing (HTML or JSON) or the `?zip` archive of a folder. Reading
/// a directory can take long (a folder of 100,000 files, a slow network file system), so
/// `response()` is blocking work for a worker thread; the loop only sends what it built.
struct DirectoryRead: Sendable {
    let path: StoragePath
    let zip: Bool
    /// With `zip`: only these entries of the folder (a multi-select download); nil for all.
    let selection: Set<String>?
    let head: RequestHead
    let app: FiledropApp
    let compression: ResponseCompression

    /// Blocking: on a worker thread. Failures become their error response.
    func response() -> Response {
        do throws(HTTPError) {
            return try build()
        } catch {
            return .error(error, format: ResponseFormat(head: head), text: app.languages.text(for: head))
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
            try checkSelectionExists()
            return ZipDownload.response(
                directory: path, selecting: selection, storage: storage, title: app.configuration.title,
                compressor: compressor)
        }
        var entries: [FileMetadata]
        do {
            entries = try storage.list(path)
        } catch {
            throw error.httpError
        }
        // Only names the download route accepts: a listed name must never be a dead link.
        // In place: a folder of 100,000 entries is not copied for it.
        entries.removeAll { entry in (try? app.store.names.storagePath(fromComponents: [entry.name])) == nil }
        let format = ResponseFormat(head: head)
        let parameters = QueryParameters(head.query)
        // Paging is for the JSON form; the page (HTML) is always whole.
        let paging = format == .json ? try ListingPaging(parameters, order: ListingOrder(parameters)) : nil
        return DirectoryListing(
            path: path, entries: consume entries, title: app.configuration.title, query: head.query, modified: metadata.modified,
            paging: paging, recordedSHA256s: { [path] files in storage.recordedSHA256s(path, files: files) }
        )
        .response(format: format, head: head, compression: compression, text: app.languages.text(for: head))
    }

    /// Every selected name is there (and is a file or folder), before the first byte goes out:
    /// once the archive has started, a status can no longer say what is missing.
    private func checkSelectionExists() throws(HTTPError) {
        for name in (selection ?? []).sorted() {
            let found: FileMetadata?
            do {
                found = try app.storage.metadata(path.appending(checkedName: name))
            } catch {
                throw error.httpError
            }
            guard found != nil else {
                throw .notFoundBecause(
                    "There is no file or folder \(FileNamePolicy.quotedForMessage(name)) in this folder to put into the ZIP.")
            }
        }
    }
}
