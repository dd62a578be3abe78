import FiledropHTTP

/// Every way a tus request fails, mapped to its status in one place (tus.io protocol.md).
/// Storage and policy failures keep `HTTPError`'s mapping through `.http`.
enum TusError: Error, Equatable {
    case http(HTTPError)
    case badRequest(String)
    /// "Tus-Resumable": a version other than 1.0.0, or none: 412 with `Tus-Version`.
    case unsupportedVersion
    case notFound
    /// "PATCH": `Upload-Offset` is not the upload's offset: 409, nothing changes.
    case offsetMismatch(current: UInt64)
    /// Another PATCH is writing this upload right now, through this daemon or another on
    /// the same save directory (it holds the upload's lock on disk): 423 Locked, as tusd
    /// answers. Not 409: that one means "your Upload-Offset is wrong", while here the offset
    /// may be right and the client only has to wait; tus clients retry both after a HEAD.
    case locked
    /// "Checksum": the body does not match `Upload-Checksum`: 460, the chunk is discarded.
    case checksumMismatch
    /// "PATCH": the body is not `application/offset+octet-stream`: 415.
    case wrongContentType
    /// The client already has `limit` unfinished uploads.
    case tooManyUploads(limit: Int)
    /// Unfinished uploads already hold `limit` bytes between them.
    case pendingSpaceFull(limit: UInt64)
    /// Storing a chunk or the record failed; the upload is kept as it was, at `keptOffset`,
    /// and resumes from there.
    case notStored(StorageError, keptOffset: UInt64)
    /// Every byte is in, but saving the file under its name failed for a reason that may pass
    /// (disk full, read-only or immutable folder, permissions, I/O): data and record are
    /// kept, and a retried PATCH at the final offset or a HEAD saves it.
    case completeNotSaved(StorageError)
    /// Every byte should be in, but the partial file holds `size` bytes, more than
    /// `Upload-Length`: never published, the upload is deleted (500: nothing the client did).
    case oversized(size: UInt64, length: UInt64)
    /// Saving was refused for a reason no retry changes (the name is taken and the
    /// collision policy rejects, a file is in the way): the upload was deleted.
    case discarded(HTTPError)

    static let lockedStatus = HTTPStatus(code: 423, reason: "Locked")
    static let tooManyRequestsStatus = HTTPStatus(code: 429, reason: "Too Many Requests")
    static let checksumMismatchStatus = HTTPStatus(code: 460, reason: "Checksum Mismatch")

    var status: HTTPStatus {
        switch self {
        case .http(let error): error.status
        case .badRequest: .badRequest
        case .unsupportedVersion: .preconditionFailed
        case .notFound: .notFound
        case .offsetMismatch: .conflict
        case .locked: Self.lockedStatus
        case .checksumMismatch: Self.checksumMismatchStatus
        case .wrongContentType: .unsupportedMediaType
        case .tooManyUploads: Self.tooManyRequestsStatus
        case .pendingSpaceFull: .insufficientStorage
        case .notStored(let error, _), .completeNotSaved(let error): Self.keptDataStatus(error)
        case .oversized: .internalServerError
        case .discarded(let error): error.status
        }
    }

    var isOversized: Bool {
        if case .oversized = self { return true }
        return false
    }

    /// The failure of saving a complete upload: kept when it may pass, discarded when not.
    static func publishFailure(_ error: StorageError) -> TusError {
        switch error {
        case .noSpace, .readOnly, .permissionDenied, .io: .completeNotSaved(error)
        case .exists, .notFound, .notADirectory, .isADirectory, .notEmpty, .nameTooLong, .notAllowed, .crossDevice,
            .movedIntoItself:
            .discarded(error.httpError)
        }
    }

    /// 5xx, so clients retry (tus-js-client gives up on 4xx): 507 when space is the problem.
    private static func keptDataStatus(_ error: StorageError) -> HTTPStatus {
        switch error {
        case .noSpace, .readOnly: .insufficientStorage
        default: .serviceUnavailable
        }
    }

    /// What went wrong, without `StorageError.httpError`'s "the upload was discarded": here
    /// the data is kept, and the sentence around it says so.
    private static func reason(_ error: StorageError) -> String {
        switch error {
        case .noSpace: "the server's disk is full"
        case .readOnly: "the save directory is read-only"
        case .permissionDenied: "the server may not write to the save directory"
        case .io(let call, let errno): "storage error in \(call) (errno \(errno))"
        default: error.httpError.message
        }
    }

    /// The same refusal for the body path, which throws `HTTPError` (a chunk that could not
    /// be stored is the one tus error it meets).
    var httpError: HTTPError {
        switch self {
        case .http(let error), .discarded(let error): error
        case .notStored, .completeNotSaved:
            status == .insufficientStorage ? .insufficientStorage(message) : .serviceUnavailable(message, retryAfterSeconds: nil)
        default: .badRequest(message)
        }
    }

    var message: String {
        switch self {
        case .http(let error): error.message
        case .badRequest(let why): why
        case .unsupportedVersion: "This server speaks tus \(TusHeaders.version): send Tus-Resumable: \(TusHeaders.version)."
        case .notFound: "No such upload: it was finished, terminated or expired."
        case .offsetMismatch(let current): "Upload-Offset does not match: the upload is at byte \(current)."
        case .locked: "Another request is writing this upload right now; try again shortly."
        case .checksumMismatch: "The body does not match Upload-Checksum; it was discarded."
        case .wrongContentType: "A PATCH body must be \(TusHeaders.patchContentType)."
        case .tooManyUploads(let limit): "You already have \(limit) unfinished uploads; finish or cancel one first."
        case .pendingSpaceFull(let limit): "Unfinished uploads already hold \(ByteCount.format(limit)); try again later."
        case .notStored(let error, let offset):
            "The server could not store this request: \(Self.reason(error)). The upload is kept at byte \(offset) and resumes from there."
        case .completeNotSaved(let error):
            "The upload is complete and kept on the server, but could not be saved under its name: \(Self.reason(error)); retry to finish it."
        case .oversized(let size, let length):
            "The upload holds \(size) bytes, more than its Upload-Length of \(length), so it was not saved and was discarded; upload the file again."
        case .discarded(let error): "The upload could not be saved under its name and was discarded: \(error.message)"
        }
    }

    /// A plain-text error (`ErrorAnswer`'s text form) carrying the tus headers every response needs.
    var response: Response {
        var headers = TusResponses.baseHeaders()
        if case .unsupportedVersion = self {
            headers.add(.tusVersion, TusHeaders.version)
        }
        if case .http(.methodNotAllowed(let allowed)) = self {
            headers.add(.allow, allowed.map(\.description).joined(separator: ", "))
        }
        return ErrorAnswer(status: status, message: message, error: nil).response(.text, status: status, headers: headers)
    }
}

/// Headers shared by every tus response.
enum TusResponses {
    /// protocol.md "Tus-Resumable": on every response; "HEAD": never cached.
    static func baseHeaders() -> HTTPHeaders {
        [.tusResumable: TusHeaders.version, .cacheControl: "no-store"]
    }
}
