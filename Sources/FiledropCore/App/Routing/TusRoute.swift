import FiledropHTTP

/// The tus resources (tus.io protocol.md), by the method the client means: tus lets a client
/// that cannot send PATCH or DELETE say so in `X-HTTP-Method-Override`
/// (`TusHeaders.effectiveMethod`).
///
/// ```
/// OPTIONS /files/  (or any upload URL)   .options     what the server supports
/// POST    /files/                        .creation    a new upload
/// HEAD    /files/.tus/<id>               .upload(id, .status)
/// PATCH   /files/.tus/<id>               .upload(id, .append)
/// DELETE  /files/.tus/<id>               .upload(id, .terminate)
/// ```
/// `/files/` is shared with the listing: only OPTIONS and POST there are tus. Upload URLs
/// are reserved for tus: `FileNamePolicy` refuses `.tus` as a stored name, even with
/// allow-hidden, so no stored folder can hide behind them.
public enum TusRoute: Sendable, Equatable {
    public enum UploadOperation: Sendable, Equatable {
        case status
        case append
        case terminate
        /// 405, after the version and the id are checked.
        case methodRefused(HTTPMethod)
    }

    case options
    case creation
    /// `id` as sent; `UnguessableID.isWellFormed` checks it after the version.
    case upload(id: Substring, UploadOperation)

    /// Upload URLs: this and the id.
    static let uploadPrefix = Route.filesPrefix + uploadFolder
    private static let uploadFolder = FileNamePolicy.tusFolderName + "/"

    /// What the tus methods can have, the upload URL's 405 `Allow`.
    static let uploadMethods: [HTTPMethod] = [.head, .patch, .delete, .options]

    /// The tus resource below `/files/` (`filesSubpath` is what follows it), nil when the
    /// request is not a tus request.
    init?(_ head: borrowing RequestHead, filesSubpath: Substring) {
        if filesSubpath.isEmpty {
            switch TusHeaders.effectiveMethod(head) {
            case .options: self = .options
            case .post: self = .creation
            default: return nil
            }
            return
        }
        // Stored names do not start with a dot unless allow-hidden: downloads stop here.
        guard filesSubpath.utf8.first == UInt8(ascii: "."), filesSubpath.hasASCIIPrefix(Self.uploadFolder) else { return nil }
        let id = filesSubpath[filesSubpath.utf8.index(filesSubpath.startIndex, offsetBy: Self.uploadFolder.utf8.count)...]
        switch TusHeaders.effectiveMethod(head) {
        case .options: self = .options
        case .head: self = .upload(id: id, .status)
        case .patch: self = .upload(id: id, .append)
        case .delete: self = .upload(id: id, .terminate)
        case let method: self = .upload(id: id, .methodRefused(method))
        }
    }
}
