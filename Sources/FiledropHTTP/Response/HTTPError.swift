/// Every way a request can fail, mapped to a status and a sentence a person understands in
/// one place. Protocol errors (`closesConnection`) are answered with `Connection: close`
/// because the framing of anything after them cannot be trusted.
public enum HTTPError: Error, Equatable, Sendable {
    // Framing and syntax (RFC 9112).
    case malformedRequestLine(String)
    case malformedHeader(String)
    case malformedChunk(String)
    case invalidContentLength
    case conflictingFraming(String)
    case unsupportedTransferCoding(String)
    case unsupportedVersion
    case headTooLarge
    case tooManyHeaders
    case uriTooLong
    case lengthRequired
    case truncatedBody
    case timeout
    // Request semantics.
    case badRequest(String)
    case notFound
    /// 404 with the reason, for a route that exists only in some configurations
    /// (`/ca.crt` when filedrop has no certificate authority of its own).
    case notFoundBecause(String)
    case methodNotAllowed(allowed: [HTTPMethod])
    /// 405 with the reason (RFC 4918 §9.3.1: MKCOL of a name that exists).
    case methodNotAllowedBecause(String, allowed: [HTTPMethod])
    case notImplemented(String)
    case unsupportedMediaType(String)
    case expectationFailed
    case contentTooLarge(limit: UInt64)
    case conflict(String)
    case forbidden(String)
    /// RFC 9110 §15.5.2: credentials are missing or wrong; sent with a `WWW-Authenticate` challenge.
    case unauthorized(String)
    /// RFC 6585 §4: the client must wait `retryAfterSeconds` (sent as `Retry-After`).
    case tooManyRequests(String, retryAfterSeconds: UInt64)
    /// RFC 9110 §15.5.20: the Host names a site this server does not serve (DNS rebinding).
    case misdirectedRequest(String)
    case preconditionFailed(String)
    case rangeNotSatisfiable(size: UInt64)
    case insufficientStorage(String)
    /// RFC 9110 §15.6.4: overloaded or stopping; sent with `Retry-After` when known.
    case serviceUnavailable(String, retryAfterSeconds: UInt64?)
    /// RFC 4918 §9.9.4: a MOVE whose Destination is on another server.
    case badGateway(String)
    case internalError(String)

    public var status: HTTPStatus {
        switch self {
        case .malformedRequestLine, .malformedHeader, .malformedChunk, .invalidContentLength,
            .conflictingFraming, .truncatedBody, .badRequest:
            .badRequest
        case .unsupportedTransferCoding, .notImplemented: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        case .headTooLarge, .tooManyHeaders: .headerFieldsTooLarge
        case .uriTooLong: .uriTooLong
        case .lengthRequired: .lengthRequired
        case .timeout: .requestTimeout
        case .notFound, .notFoundBecause: .notFound
        case .methodNotAllowed, .methodNotAllowedBecause: .methodNotAllowed
        case .unsupportedMediaType: .unsupportedMediaType
        case .expectationFailed: .expectationFailed
        case .contentTooLarge: .contentTooLarge
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .unauthorized: .unauthorized
        case .tooManyRequests: .tooManyRequests
        case .misdirectedRequest: .misdirectedRequest
        case .preconditionFailed: .preconditionFailed
        case .rangeNotSatisfiable: .rangeNotSatisfiable
        case .insufficientStorage: .insufficientStorage
        case .serviceUnavailable: .serviceUnavailable
        case .badGateway: .badGateway
        case .internalError: .internalServerError
        }
    }

    /// A sentence for the person on the other end (shown in HTML, text or JSON).
    public var message: String {
        switch self {
        case .malformedRequestLine(let why): "The request line is malformed: \(why)."
        case .malformedHeader(let why): "A request header is malformed: \(why)."
        case .malformedChunk(let why): "The chunked request body is malformed: \(why)."
        case .invalidContentLength: "The Content-Length header is invalid or repeated with different values."
        case .conflictingFraming(let why): "The request body framing is ambiguous: \(why)."
        case .unsupportedTransferCoding(let coding):
            "The transfer coding \"\(coding)\" is not supported; send the body plain or chunked."
        case .unsupportedVersion: "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .headTooLarge: "The request headers are too large."
        case .tooManyHeaders: "The request has too many header fields."
        case .uriTooLong: "The request URL is too long."
        case .lengthRequired: "This request needs a Content-Length or a chunked body."
        case .truncatedBody: "The request body ended before it was complete."
        case .timeout: "The request took too long to arrive."
        case .badRequest(let why): why
        case .notFound: "Nothing is here."
        case .notFoundBecause(let why): why
        case .methodNotAllowed: "That method is not allowed here."
        case .methodNotAllowedBecause(let why, _): why
        case .notImplemented(let what): "\(what) is not implemented."
        case .unsupportedMediaType(let why): why
        case .expectationFailed: "Only \"Expect: 100-continue\" is understood."
        case .contentTooLarge(let limit): "The upload is larger than this server accepts (\(ByteCount.format(limit)) at most)."
        case .conflict(let why): why
        case .forbidden(let why): why
        case .unauthorized(let why): why
        case .tooManyRequests(let why, _): why
        case .misdirectedRequest(let why): why
        case .preconditionFailed(let why): why
        case .rangeNotSatisfiable: "The requested range is outside the file."
        case .insufficientStorage(let why): why
        case .serviceUnavailable(let why, _): why
        case .badGateway(let why): why
        case .internalError(let why): "The server failed: \(why)."
        }
    }

    /// Errors after which the rest of the byte stream cannot be trusted.
    public var closesConnection: Bool {
        switch self {
        case .malformedRequestLine, .malformedHeader, .malformedChunk, .invalidContentLength,
            .conflictingFraming, .unsupportedTransferCoding, .unsupportedVersion, .headTooLarge,
            .tooManyHeaders, .uriTooLong, .lengthRequired, .truncatedBody, .timeout:
            true
        default:
            false
        }
    }
}
