/// A stored file sent back: inline when the browser can show it safely, as an attachment
/// when it could run script on our origin (HTML, SVG, XML) or when `?download` asks;
/// always sandboxed by CSP. Handles Range and If-Range for resumed downloads.
enum FileDownload {
    /// Even a file shown inline can do nothing: no script, no plugins, no forms.
    static let sandboxPolicy = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'"

    /// A download is revalidated before each use.
    static let cacheControl = "no-cache"

    /// The fields a download puts before `FileResponse`'s: how to show it, and the sandbox.
    static func downloadFields(contentDisposition: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        headers.add(name: "Content-Disposition", value: contentDisposition)
        headers.add(name: "Content-Security-Policy", value: sandboxPolicy)
        return headers
    }

    /// `cache` keeps the header values of each file version (`FileHeaderCache`), with the
    /// serialized headers of the usual answer: the whole file, not encoded.
    static func response(_ file: OpenedFile, head: RequestHead, forceDownload: Bool, compression: ResponseCompression,
                         cache: FileHeaderCache) -> Response {
        let values = cache.values(for: file.metadata, forceDownload: forceDownload)
        let mayHaveConditionalOrRange = head.mayHaveConditionalOrRange
        let type = values.contentType
        let encoding = compression.fileEncoding(contentType: type, size: file.metadata.size, cacheKey: nil, head: head)
        var response: Response
        if case .identity = encoding {
            response = FileResponse.make(file, head: head, identityHeaders: values.identityHeaders, validators: values.validators)
        } else {
            response = FileResponse.make(file, head: head, contentType: type, cacheControl: cacheControl,
                                         extraHeaders: downloadFields(contentDisposition: values.contentDisposition),
                                         encoding: encoding, validators: values.validators)
        }
        guard response.status == .ok, mayHaveConditionalOrRange, case .file(let whole) = response.body else { return response }
        guard ifRangeHolds(head.headers[.ifRange], etag: values.validators.etag, modified: values.validators.modifiedSeconds) else {
            return response
        }
        switch ByteRangeRequest(header: head.headers[.range], size: whole.length) {
        case .ignored:
            return response
        case .unsatisfiable:
            return .error(.rangeNotSatisfiable(size: whole.length), format: ResponseFormat(head: head))
        case .ranges(let requested):
            let ranges = ByteRangeSet(requested).ranges
            response.status = .partialContent
            if ranges.count == 1, let range = ranges.first {
                response.headers.add(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(whole.length)")
                response.body = .file(FileRegion(file: whole.file, offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1))
            } else {
                // RFC 9110 §14.6: several ranges go as multipart/byteranges, each part with
                // its own Content-Type and Content-Range.
                let body = MultipartByteRangesBody(file: whole.file, size: whole.length, contentType: type,
                                                   ranges: ranges, boundary: MultipartByteRangesBody.randomBoundary())
                response.headers.replaceOrAdd(name: "Content-Type", value: body.contentType)
                response.body = .stream(body)
            }
            return response
        }
    }

    /// RFC 9110 §13.1.5: a Range applies only while the validator still matches.
    /// `etag` is computed only when the header is present (rarely).
    private static func ifRangeHolds(_ value: String?, etag: @autoclosure () -> String, modified: Int64) -> Bool {
        guard let value = value?.trimmingOWS() else { return true }
        if value.hasPrefix("\"") { return value == etag() }
        if value.hasPrefix("W/") { return false }
        return HTTPDate.parse(value) == modified
    }
}
