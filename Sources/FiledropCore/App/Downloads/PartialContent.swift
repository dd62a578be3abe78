import FiledropHTTP

/// Range requests (RFC 9110 §14) on a file answered whole: one range as 206 with
/// Content-Range, several as multipart/byteranges, none satisfiable as 416, and If-Range
/// (§13.1.5) deciding whether the ranges apply at all. Stored files and the page's own files
/// (`FileDownload`, `StaticSite`) both go through here, so what `Accept-Ranges: bytes`
/// promises holds for both.
enum PartialContent {
    /// `response` narrowed to the requested ranges; unchanged unless it is a 200 with the
    /// identity bytes of the file (a gzip or generated body is never cut into ranges).
    static func answer(_ response: Response, head: RequestHead, validators: FileValidators, contentType: String) -> Response {
        guard response.status == .ok, case .file(let whole) = response.body else { return response }
        guard ifRangeHolds(head.headers[.ifRange], etag: validators.etag, modified: validators.modifiedSeconds) else {
            return response
        }
        var response = response
        switch ByteRangeRequest(header: head.headers[.range], size: whole.length) {
        case .ignored:
            return response
        case .unsatisfiable:
            return .error(.rangeNotSatisfiable(size: whole.length), format: ResponseFormat(head: head))
        case .ranges(let requested):
            let ranges = ByteRangeSet(requested).ranges
            response.status = .partialContent
            if ranges.count == 1, let range = ranges.first {
                response.headers.add(.contentRange, "bytes \(range.lowerBound)-\(range.upperBound)/\(whole.length)")
                response.body = .file(
                    FileRegion(file: whole.file, offset: range.lowerBound, length: range.upperBound - range.lowerBound + 1))
            } else {
                // RFC 9110 §14.6: several ranges go as multipart/byteranges, each part with
                // its own Content-Type and Content-Range.
                let body = MultipartByteRangesBody(
                    file: whole.file, size: whole.length, contentType: contentType,
                    ranges: ranges, boundary: MultipartByteRangesBody.randomBoundary())
                response.headers.replaceOrAdd(.contentType, body.contentType)
                response.body = .stream(UnsafeTransfer(body))
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
