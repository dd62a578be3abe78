import FiledropHTTP

/// A stored file sent back: inline when the browser can show it safely, as an attachment
/// when it could run script on our origin (HTML, SVG, XML) or when `?download` asks;
/// always sandboxed by CSP. Range and If-Range for resumed downloads: `PartialContent`.
enum FileDownload {
    /// A download is revalidated before each use.
    static let cacheControl = "no-cache"

    /// The fields a download puts before `FileResponse`'s: how to show it, and the sandbox.
    static func downloadFields(contentDisposition: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        headers.add(.contentDisposition, contentDisposition)
        // Even a file shown inline can do nothing: no script, no plugins, no forms.
        headers.add(policy: .storedFile)
        return headers
    }

    /// `cache` keeps the header values of each file version (`FileHeaderCache`), with the
    /// serialized headers of the usual answer: the whole file, not encoded. A 200 or 206
    /// carries the recorded SHA-256 as Repr-Digest (RFC 9530 §3).
    static func response(
        _ file: OpenedFile, head: RequestHead, forceDownload: Bool, compression: ResponseCompression,
        cache: FileHeaderCache
    ) -> Response {
        let values = cache.values(
            for: file.metadata, sha256: file.sha256, forceDownload: forceDownload,
            serverCompresses: compression.serverCompresses)
        let mayHaveConditionalOrRange = head.mayHaveConditionalOrRange
        let type = values.contentType
        let encoding = compression.fileEncoding(contentType: type, size: file.metadata.size, cacheKey: nil, head: head)
        // Made in one expression: assigned to a `var` in two branches, the Response was copied
        // and the original destroyed on every download.
        let response =
            if case .identity = encoding {
                FileResponse.make(
                    file, head: head, identityHeaders: values.identityHeaders,
                    conditionalHeaders: values.conditionalHeaders, validators: values.validators)
            } else {
                encoded(file, head: head, values: values, encoding: encoding)
            }
        guard mayHaveConditionalOrRange else { return response }
        return PartialContent.answer(response, head: head, validators: values.validators, contentType: type)
    }

    /// The gzip variant: its fields are built for it, Repr-Digest added to a 200.
    private static func encoded(_ file: OpenedFile, head: RequestHead, values: FileHeaderValues, encoding: FileEncoding)
        -> Response
    {
        var response = FileResponse.make(
            file, head: head, contentType: values.contentType, cacheControl: cacheControl,
            extraHeaders: downloadFields(contentDisposition: values.contentDisposition),
            encoding: encoding, validators: values.validators)
        if response.status == .ok, let reprDigest = values.reprDigest { response.headers.add(.reprDigest, reprDigest) }
        return response
    }
}
