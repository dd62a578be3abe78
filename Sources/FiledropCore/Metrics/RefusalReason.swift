import FiledropHTTP

/// Why a request was answered with an error (or a connection refused before any request):
/// the `reason` label of `filedrop_refusals_total`, each with its fixed status code (the
/// `code` label). A fixed set, so a flood of odd requests cannot grow the series.
public enum RefusalReason: String, Sendable, CaseIterable {
    case malformedRequest = "malformed_request"
    case badRequest = "bad_request"
    case unauthorized
    case forbidden
    /// A state-changing request a browser sent for another website (`OriginCheck`).
    case forbiddenOrigin = "forbidden_origin"
    /// An upload or delete on a read-only server.
    case readOnly = "read_only"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case timeout
    case conflict
    case lengthRequired = "length_required"
    case preconditionFailed = "precondition_failed"
    case tooLarge = "too_large"
    case uriTooLong = "uri_too_long"
    case unsupportedMediaType = "unsupported_media_type"
    case rangeNotSatisfiable = "range_not_satisfiable"
    case expectationFailed = "expectation_failed"
    /// The Host names no site served here (DNS rebinding).
    case unknownHost = "unknown_host"
    /// Upload slots, the hourly quota, or too many wrong passwords.
    case rateLimited = "rate_limited"
    case headTooLarge = "head_too_large"
    /// tus: the body does not match Upload-Checksum.
    case checksumMismatch = "checksum_mismatch"
    case internalError = "internal_error"
    case notImplemented = "not_implemented"
    /// 503 to a request: workers or password checks at their bound, or shutting down.
    case busy
    /// 503 to a new connection, before any request: max-connections or the per-address share.
    case connectionLimit = "connection_limit"
    case versionNotSupported = "version_not_supported"
    case noSpace = "no_space"
    /// Any other error status.
    case other

    /// The `code` label.
    public var code: String {
        switch self {
        case .malformedRequest, .badRequest: "400"
        case .unauthorized: "401"
        case .forbidden, .forbiddenOrigin, .readOnly: "403"
        case .notFound: "404"
        case .methodNotAllowed: "405"
        case .timeout: "408"
        case .conflict: "409"
        case .lengthRequired: "411"
        case .preconditionFailed: "412"
        case .tooLarge: "413"
        case .uriTooLong: "414"
        case .unsupportedMediaType: "415"
        case .rangeNotSatisfiable: "416"
        case .expectationFailed: "417"
        case .unknownHost: "421"
        case .rateLimited: "429"
        case .headTooLarge: "431"
        case .checksumMismatch: "460"
        case .internalError: "500"
        case .notImplemented: "501"
        case .busy, .connectionLimit: "503"
        case .versionNotSupported: "505"
        case .noSpace: "507"
        case .other: "other"
        }
    }

    /// The reason an error status stands for when nothing more precise is known (a response
    /// not built from an `HTTPError`, such as tus's own); nil below 400.
    public init?(status: HTTPStatus) {
        switch status.code {
        case ..<400: return nil
        case 400: self = .badRequest
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .notFound
        case 405: self = .methodNotAllowed
        case 408: self = .timeout
        case 409: self = .conflict
        case 411: self = .lengthRequired
        case 412: self = .preconditionFailed
        case 413: self = .tooLarge
        case 414: self = .uriTooLong
        case 415: self = .unsupportedMediaType
        case 416: self = .rangeNotSatisfiable
        case 417: self = .expectationFailed
        case 421: self = .unknownHost
        case 429: self = .rateLimited
        case 431: self = .headTooLarge
        case 460: self = .checksumMismatch
        case 500: self = .internalError
        case 501: self = .notImplemented
        case 503: self = .busy
        case 505: self = .versionNotSupported
        case 507: self = .noSpace
        default: self = .other
        }
    }

    /// The reason `error` stands for, telling apart what one status covers.
    public init(_ error: HTTPError) {
        switch error {
        case .malformedRequestLine, .malformedHeader, .malformedChunk, .invalidContentLength, .conflictingFraming,
            .truncatedBody:
            self = .malformedRequest
        case .forbidden(let why):
            self =
                error == .readOnlyServer ? .readOnly : why.hasPrefix(OriginCheck.refusalOpening) ? .forbiddenOrigin : .forbidden
        default:
            self = RefusalReason(status: error.status) ?? .other
        }
    }
}
