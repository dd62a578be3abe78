/// A response status code with its reason phrase (RFC 9110 §15).
public struct HTTPStatus: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }

    /// RFC 9110 §6.4.1: 1xx, 204 and 304 never carry content.
    public var allowsContent: Bool { !(code < 200 || code == 204 || code == 304) }

    public static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    public static let created = HTTPStatus(code: 201, reason: "Created")
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    public static let partialContent = HTTPStatus(code: 206, reason: "Partial Content")
    public static let movedPermanently = HTTPStatus(code: 301, reason: "Moved Permanently")
    public static let seeOther = HTTPStatus(code: 303, reason: "See Other")
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// RFC 9110 §15.4.9: like 301, but the client must repeat the same method.
    public static let permanentRedirect = HTTPStatus(code: 308, reason: "Permanent Redirect")
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    public static let lengthRequired = HTTPStatus(code: 411, reason: "Length Required")
    public static let preconditionFailed = HTTPStatus(code: 412, reason: "Precondition Failed")
    public static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    public static let rangeNotSatisfiable = HTTPStatus(code: 416, reason: "Range Not Satisfiable")
    public static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    public static let misdirectedRequest = HTTPStatus(code: 421, reason: "Misdirected Request")
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    public static let headerFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    public static let badGateway = HTTPStatus(code: 502, reason: "Bad Gateway")
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")
    public static let insufficientStorage = HTTPStatus(code: 507, reason: "Insufficient Storage")
}
