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
        case .io(let call, let errno): .internalError("storage error in \(call) (errno \(errno))")
        }
    }
}
