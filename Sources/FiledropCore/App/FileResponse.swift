import FiledropHTTP

/// Builds the response for one opened file: validators (strong ETag, Last-Modified),
/// conditional requests (RFC 9110 §13) and the body as a sendfile region.
public enum FileResponse {
    /// Strong ETag: a keyed hash of inode, size and mtime (ns), 16 hex digits. It changes
    /// whenever the bytes can have changed (a new upload is a new inode, a write moves the
    /// mtime) but tells a client nothing of them; `key` says why it is keyed.
    public static func etag(for metadata: FileMetadata) -> String {
        etag(for: metadata, key: .process)
    }

    static func etag(for metadata: FileMetadata, key: ValidatorKey) -> String {
        "\"" + ValidatorKey.hex(key.hash([metadata.inode, metadata.size, UInt64(bitPattern: metadata.modified)])) + "\""
    }

    /// `validators` are the file's own (`FileValidators(file.metadata)`) when nil; a caller
    /// that keeps them per file version passes them in. `variesByEncoding`: another request
    /// for this file could get it gzip-encoded (`ResponseCompression.variesByEncoding`), so
    /// this variant names Accept-Encoding in Vary as the gzip one does.
    public static func make(
        _ file: OpenedFile, head: RequestHead, contentType: String, cacheControl: String,
        extraHeaders: consuming HTTPHeaders = HTTPHeaders(),
        encoding: FileEncoding = .identity, variesByEncoding: Bool = false, validators: FileValidators? = nil
    ) -> Response {
        let metadata = file.metadata
        let validators = validators ?? FileValidators(metadata)
        var etag = validators.etag
        // Taken over, not copied: the adds below then need no copy of the caller's fields.
        var headers = consume extraHeaders
        headers.reserveCapacity(headers.count + 6)
        var gzip = true
        if case .identity = encoding { gzip = false }
        if gzip { etag = ResponseCompression.gzipETag(etag) }
        // RFC 9110 §12.5.5: every variant names what chose it, the identity one and 304s too.
        if gzip || variesByEncoding { headers.addVary("Accept-Encoding") }
        addFileFields(
            to: &headers, contentType: contentType, etag: etag, lastModified: validators.lastModified, cacheControl: cacheControl,
            acceptsRanges: !gzip)
        if let status = conditionalStatus(head: head, etag: etag, modifiedSeconds: validators.modifiedSeconds) {
            return Response(status: status, headers: headers)
        }
        let region = FileRegion(file: file.handle, offset: 0, length: metadata.size)
        switch encoding {
        case .identity:
            return Response(status: .ok, headers: headers, body: .file(region))
        case .gzipCached(let compressor, let cacheKey):
            headers.add(.contentEncoding, "gzip")
            let body =
                compressor.cachedGzip(of: region, cacheKey: cacheKey).map(ResponseBody.bytes)
                ?? .stream(UnsafeTransfer(compressor.gzipStream(of: region)))
            return Response(status: .ok, headers: headers, body: body)
        case .gzipStreamed(let compressor):
            headers.add(.contentEncoding, "gzip")
            return Response(status: .ok, headers: headers, body: .stream(UnsafeTransfer(compressor.gzipStream(of: region))))
        }
    }

    /// The identity response for `file` whose headers are ready: those `make` builds for
    /// `.identity`, serialized once per file version (`FileHeaderValues.identityHeaders`, and
    /// `conditionalHeaders` for a 304 or 412). The same statuses as `make`; nothing here
    /// touches the headers, so their bytes go along.
    static func make(
        _ file: OpenedFile, head: RequestHead, identityHeaders: SerializedHeaders, conditionalHeaders: SerializedHeaders,
        validators: FileValidators
    ) -> Response {
        if let status = conditionalStatus(head: head, etag: validators.etag, modifiedSeconds: validators.modifiedSeconds) {
            return Response(status: status, headers: conditionalHeaders)
        }
        return Response(
            status: .ok, headers: identityHeaders,
            body: .file(FileRegion(file: file.handle, offset: 0, length: file.metadata.size)))
    }

    /// The fields every file response carries after the caller's own, in this order.
    /// `acceptsRanges` is false for a gzip variant: a Range is always answered from the
    /// identity bytes (`ResponseCompression.fileEncoding` picks identity when Range is sent;
    /// RFC 9110 §14.1.2 ranges count bytes of the selected representation), so a gzip body
    /// must not invite a client to resume it by offset; it gets no Accept-Ranges, and its
    /// `-gz` ETag never satisfies an If-Range (no gzip prefix spliced to identity bytes).
    static func addFileFields(
        to headers: inout HTTPHeaders, contentType: String, etag: String, lastModified: String, cacheControl: String,
        acceptsRanges: Bool = true
    ) {
        headers.add(.contentType, contentType)
        headers.add(.etag, etag)
        headers.add(.lastModified, lastModified)
        headers.add(.cacheControl, cacheControl)
        if acceptsRanges { headers.add(.acceptRanges, "bytes") }
    }

    /// 412 or 304 when a conditional header decides the answer (RFC 9110 §13.2.2), nil for
    /// the full response.
    static func conditionalStatus(head: RequestHead, etag: String, modifiedSeconds: Int64) -> HTTPStatus? {
        guard head.mayHaveConditionalOrRange else { return nil }
        if !preconditionsHold(head: head, etag: etag, modifiedSeconds: modifiedSeconds) { return .preconditionFailed }
        if isNotModified(head: head, etag: etag, modifiedSeconds: modifiedSeconds) { return .notModified }
        return nil
    }

    /// RFC 9110 §13.1.1 and §13.1.4, evaluated first (§13.2.2 steps 1 and 2): If-Match
    /// compares strongly (`*` matches any current file); If-Unmodified-Since counts only
    /// without If-Match. False means 412: the client's copy is not the one stored now.
    static func preconditionsHold(head: RequestHead, etag: String, modifiedSeconds: Int64) -> Bool {
        if let ifMatch = head.headers[.ifMatch] {
            return ifMatch.split(separator: ",").contains { tag in
                let trimmed = tag.trimmingOWS()
                return trimmed == "*" || trimmed == etag
            }
        }
        if let since = head.headers[.ifUnmodifiedSince], let sinceSeconds = HTTPDate.parse(since) {
            return modifiedSeconds <= sinceSeconds
        }
        return true
    }

    /// RFC 9110 §13.1.2 and §13.1.3: If-None-Match wins; If-Modified-Since only without it.
    static func isNotModified(head: RequestHead, etag: String, modifiedSeconds: Int64) -> Bool {
        guard head.method == .get || head.method == .head else { return false }
        if let ifNoneMatch = head.headers[.ifNoneMatch] {
            return ifNoneMatch.split(separator: ",").contains { tag in
                let trimmed = tag.trimmingOWS()
                return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
            }
        }
        if let since = head.headers[.ifModifiedSince], let sinceSeconds = HTTPDate.parse(since) {
            return modifiedSeconds <= sinceSeconds
        }
        return false
    }
}

/// The validators of one version of a file (RFC 9110 §8.8): a strong ETag and Last-Modified,
/// which change whenever the bytes can have changed.
public struct FileValidators: Sendable {
    public let etag: String
    /// IMF-fixdate of `modifiedSeconds`.
    public let lastModified: String
    /// The modification time in whole seconds, as Last-Modified and the date conditionals see it.
    public let modifiedSeconds: Int64

    public init(_ metadata: FileMetadata) {
        self.init(etag: FileResponse.etag(for: metadata), modifiedSeconds: metadata.modified / 1_000_000_000)
    }

    /// The validators of a generated body (a listing).
    init(etag: String, modifiedSeconds: Int64) {
        self.etag = etag
        self.modifiedSeconds = modifiedSeconds
        lastModified = HTTPDate.format(modifiedSeconds)
    }
}
