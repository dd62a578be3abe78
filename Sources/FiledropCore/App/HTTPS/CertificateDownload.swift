import FiledropHTTP

/// `/ca.crt`: filedrop's CA certificate as DER, the form Android, Windows and macOS open
/// with their certificate installers (`application/x-x509-ca-cert` tells them it is a CA).
/// Revalidated each time with its ETag, so a CA made anew is picked up at once.
enum CertificateDownload {
    static let fileName = "filedrop-ca.crt"

    static func response(_ anchor: TrustAnchor, head: RequestHead) -> Response {
        let etag = anchor.certificateETag
        var headers: HTTPHeaders = [.etag: etag, .cacheControl: "no-cache"]
        // No Last-Modified is sent, so If-Modified-Since alone never makes this a 304.
        if FileResponse.isNotModified(head: head, etag: etag, modifiedSeconds: .max) {
            return Response(status: .notModified, headers: headers)
        }
        headers.add(.contentType, "application/x-x509-ca-cert")
        headers.add(.contentDisposition, "attachment; filename=\"\(fileName)\"")
        return Response(status: .ok, headers: headers, body: .bytes(anchor.certificateDER))
    }
}
