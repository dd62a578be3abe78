import FiledropHTTP

/// `GET /files/<dir>/?zip`: the folder as one ZIP archive, written while it is sent (no temp
/// file, no length ahead, so it goes chunked). The archive walks the same `Storage.list`
/// the listings use, so whatever a listing hides the archive leaves out too.
enum ZipDownload {
    /// `selecting`: only those entries of `directory` (already checked to exist), nil for all.
    static func response(
        directory: StoragePath, selecting names: Set<String>? = nil, storage: any Storage, title: String,
        compressor: any ContentCompressor
    ) -> Response {
        var headers = HTTPHeaders()
        headers.add(.contentType, "application/zip")
        headers.add(.contentDisposition, contentDispositionValue(filename: archiveName(directory: directory, title: title)))
        // The bytes depend on the moment they are written: never cache or resume them.
        headers.add(.cacheControl, "no-store")
        return Response(
            status: .ok, headers: headers,
            body: .stream(UnsafeTransfer(compressor.zipStream(of: directory, selecting: names, in: storage))))
    }

    /// `<folder>.zip`, or `<title>.zip` for the whole drop.
    static func archiveName(directory: StoragePath, title: String) -> String {
        let base = directory.name ?? (title.isEmpty ? "files" : title)
        return base + ".zip"
    }
}
