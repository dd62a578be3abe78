import FiledropHTTP

/// `/files/<path>`: a stored file or folder and what to do with it. The path stays
/// percent-encoded here; `FileNamePolicy.storagePath(fromURLPath:)` decodes and checks it
/// once, in dispatch, after the access checks (so a password-protected server answers 401,
/// not 400, to a path it would refuse).
public struct StoredFileRoute: Sendable, Equatable {
    public enum Operation: Sendable, Equatable {
        /// GET, HEAD of a file URL; `attachment` for `?download` (Content-Disposition).
        case download(attachment: Bool)
        /// GET, HEAD of a file URL with `?sha256`: its recorded SHA-256 in `sha256sum` form.
        case sha256
        /// GET, HEAD of a folder URL (ending in `/`): the listing, or with `?zip` the archive.
        case listing(zip: Bool)
        /// GET, HEAD of a folder URL with `?zip&select=a.txt&select=sub/`: an archive of only
        /// those entries of the folder (each value decoded, checked in dispatch).
        case zipSelection(names: [String])
        /// PUT of a file URL: a raw body.
        case upload
        /// Only with allow-delete (dispatch checks the configuration).
        case delete
        /// WebDAV MOVE (RFC 4918 §9.9): rename to the `Destination` field's path, never
        /// replacing; only with allow-delete, as a rename removes the old name.
        case move(destination: String?)
        /// WebDAV MKCOL (RFC 4918 §9.3): a new, empty folder; `hasBody` is refused with 415.
        case makeFolder(hasBody: Bool)
        case options
        /// 405 with `allowed`, once the path has been checked.
        case methodRefused(HTTPMethod, allowed: [HTTPMethod])
    }

    /// What follows `/files/`, still percent-encoded.
    public let urlPath: Substring
    /// The URL ends in `/` (or is `/files/` itself): it names a folder.
    public let isDirectoryURL: Bool
    public let operation: Operation

    /// What a stored file takes, besides DELETE and MOVE with allow-delete, MKCOL and OPTIONS.
    static let allowedMethods: [HTTPMethod] = [.get, .head, .put]

    public init(urlPath: Substring, isDirectoryURL: Bool, operation: Operation) {
        self.urlPath = urlPath
        self.isDirectoryURL = isDirectoryURL
        self.operation = operation
    }

    init(_ head: borrowing RequestHead, urlPath: Substring) {
        let isDirectoryURL = urlPath.isEmpty || urlPath.utf8.last == UInt8(ascii: "/")
        let operation: Operation
        switch head.method {
        case .get, .head:
            let query = QueryParameters(head.query)
            if !isDirectoryURL {
                operation = query.contains("sha256") ? .sha256 : .download(attachment: query.contains("download"))
            } else if query.contains("zip"), query.contains("select") {
                operation = .zipSelection(names: query.values(for: "select"))
            } else {
                operation = .listing(zip: query.contains("zip"))
            }
        case .put:
            operation = isDirectoryURL ? .methodRefused(.put, allowed: [.get, .head]) : .upload
        case .delete:
            operation = .delete
        case .move:
            operation = .move(destination: head.headers[.destination])
        case .mkcol:
            operation = .makeFolder(
                hasBody: head.headers.contains(.transferEncoding)
                    || (head.headers[.contentLength].map { $0 != "0" } ?? false))
        case .options:
            operation = .options
        default:
            operation = .methodRefused(head.method, allowed: Self.allowedMethods)
        }
        self.init(urlPath: urlPath, isDirectoryURL: isDirectoryURL, operation: operation)
    }
}
