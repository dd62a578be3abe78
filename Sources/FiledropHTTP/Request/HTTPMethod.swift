/// A request method (RFC 9110 §9). Known methods are cases so that routing is a switch;
/// anything else keeps its token so it can be logged and answered with 501.
public enum HTTPMethod: Equatable, Hashable, Sendable, CustomStringConvertible {
    case get, head, post, put, delete, options, patch
    /// WebDAV (RFC 4918 §9.9, §9.3): renaming and making folders, as dufs takes them.
    case move, mkcol
    case other(String)

    public init(token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        case "MOVE": self = .move
        case "MKCOL": self = .mkcol
        default: self = .other(token)
        }
    }

    public var description: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .move: "MOVE"
        case .mkcol: "MKCOL"
        case .other(let token): token
        }
    }
}

/// HTTP/1.x version from the request line. Only 1.0 and 1.1 are served (505 otherwise).
public struct HTTPVersion: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}
