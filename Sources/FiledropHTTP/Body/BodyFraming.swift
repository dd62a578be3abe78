/// How the length of a request body is determined (RFC 9112 §6.3).
public enum BodyFraming: Equatable, Sendable {
    case none
    case length(UInt64)
    case chunked
}
