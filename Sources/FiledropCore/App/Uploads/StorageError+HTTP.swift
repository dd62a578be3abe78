extension StorageError {
    /// 409 (RFC 4918 §9.9.4 leaves the status to the server): the request conflicts with the
    /// tree as it is, and no retry can succeed.
    static let folderIntoItself = "A folder cannot be moved into itself."

    /// The one mapping from file-system outcomes to what the client is told.
    public var httpError: HTTPError {
        switch self {
        case .exists: .conflict("A file with this name already exists.")
        case .notFound: .notFound
        case .notADirectory: .conflict("A file is in the way: that folder name is taken by a file.")
        case .isADirectory: .conflict("A folder with this name already exists.")
        case .notEmpty: .conflict("That folder is not empty.")
        case .noSpace: .insufficientStorage("The server's disk is full; the upload was discarded.")
        case .readOnly: .insufficientStorage("The save directory is read-only; nothing can be stored.")
        case .permissionDenied: .forbidden("The server may not write to the save directory.")
        case .nameTooLong: .badRequest("The file name is too long.")
        case .notAllowed: .forbidden("That path is not allowed.")
        case .movedIntoItself: .conflict(Self.folderIntoItself)
        // 502 as for a Destination on another server (RFC 4918 §9.9.4): the other file system
        // is, for a rename, another place the server cannot reach by renaming. Not retryable.
        case .crossDevice: .badGateway("The destination is on another file system inside the save directory, and files can only be renamed within one file system.")
        case .io(let call, let errno): .internalError("storage error in \(call) (errno \(errno))")
        }
    }
}
