import FiledropHTTP

/// The page and its assets from the web root (the page built into the binary, or the
/// folder `web-root` names). Only plain files directly in the web root are
/// served; the page's own CSP allows nothing from elsewhere and no inline script.
enum StaticSite {
    /// `requestedName`: the path without its `/` (`Route.page`).
    static func response(
        for requestedName: Substring, head: RequestHead, webRoot: any Storage,
        compression: ResponseCompression
    ) throws(HTTPError) -> Response {
        let name = String(requestedName)
        // Names are ours: one component of safe characters, nothing hidden.
        guard !name.isEmpty, !name.hasPrefix("."), name.utf8.allSatisfy(isSafeNameByte) else { throw .notFound }
        let file: OpenedFile
        do {
            file = try webRoot.open(StoragePath(checkedComponents: [name]))
        } catch .notFound, .isADirectory, .notAllowed {
            throw .notFound
        } catch {
            throw error.httpError
        }
        var headers = HTTPHeaders()
        headers.add(policy: .uploadPage)
        // Revalidate with the ETag each time: cheap 304s for phones, and a new release is
        // picked up at once.
        let type = MediaTypes.type(forFileName: name)
        let validators = FileValidators(file.metadata)
        let encoding = compression.fileEncoding(
            contentType: type, size: file.metadata.size,
            cacheKey: name + validators.etag, head: head)
        let response = FileResponse.make(
            file, head: head, contentType: type, cacheControl: "no-cache", extraHeaders: headers,
            encoding: encoding,
            variesByEncoding: compression.variesByEncoding(contentType: type, size: file.metadata.size, cached: true),
            validators: validators)
        // The identity 200 advertises `Accept-Ranges: bytes`: ranges and If-Range as for a
        // stored file. A Range request always gets the identity bytes (see `fileEncoding`).
        return PartialContent.answer(response, head: head, validators: validators, contentType: type)
    }

    private static func isSafeNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
