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
    /// Another PATCH is writing this upload right now.
    case locked
    /// "Checksum": the body does not match `Upload-Checksum`: 460, the chunk is discarded.
    case checksumMismatch
    /// "PATCH": the body is not `application/offset+octet-stream`: 415.
    case wrongContentType
    /// The client already has `limit` unfinished uploads.
    case tooManyUploads(limit: Int)
    /// Unfinished uploads already hold `limit` bytes between them.
    case pendingSpaceFull(limit: UInt64)

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
        }
    }

    /// A plain-text error carrying the tus headers every response needs.
    var response: Response {
        var headers = TusResponses.baseHeaders()
        if case .unsupportedVersion = self {
            headers.add(name: "Tus-Version", value: TusHeaders.version)
        }
        if case .http(.methodNotAllowed(let allowed)) = self {
            headers.add(name: "Allow", value: allowed.map(\.description).joined(separator: ", "))
        }
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        return Response(status: status, headers: headers, body: .bytes(Array("\(status.code) \(status.reason): \(message)\n".utf8)))
    }
}

/// Headers shared by every tus response.
enum TusResponses {
    /// protocol.md "Tus-Resumable": on every response; "HEAD": never cached.
    static func baseHeaders() -> HTTPHeaders {
        ["Tus-Resumable": TusHeaders.version, "Cache-Control": "no-store"]
    }
}
