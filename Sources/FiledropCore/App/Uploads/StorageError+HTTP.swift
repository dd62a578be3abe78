import FiledropHTTP

extension StorageError {
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
        // RFC 4918 §9.9.4 names no status for it; 409: the request conflicts with the tree as
        // it is, and no retry can succeed.
        case .movedIntoItself: .conflict("A folder cannot be moved into itself.")
        // RFC 4918 §9.9.4: 502 "could also occur when the destination is on another
        // sub-section of the same server namespace", which a mounted file system is for a
        // rename (it moves names, not data). Not a 5xx to retry: the sentence says why.
        case .crossDevice:
            .badGateway(
                "The destination is on another file system inside the save directory, and files can only be renamed within one file system."
            )
        case .io(let call, let errno): .internalError("storage error in \(call) (errno \(errno))")
        }
    }
}
