/// The application side of a connection: given a request head, either answer at once or
/// take the body. Implemented by `FiledropApp`; tests plug in their own.
public protocol HTTPResponder: Sendable {
    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision
}

/// What a route wants after seeing the head. Deciding before any body byte is read is what
/// lets a 401 or 413 go out instead of `100 Continue` (RFC 9110 §10.1.1).
public enum RouteDecision {
    case respond(Response)
    case readBody(any RequestBodyConsumer)
}

/// Receives a request body as it arrives, so memory stays flat whatever the size.
/// Exactly one of `finish` or `abort` is called.
public protocol RequestBodyConsumer: AnyObject {
    /// Payload bytes, in order. Throwing stops the request with that error's response.
    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError)
    /// The body is complete; return the final response.
    func finish(trailers: HTTPHeaders) -> Response
    /// The body will never complete (disconnect, timeout, framing error): undo everything.
    func abort()
}

/// Facts about the connection a route may need.
public struct RequestContext: Sendable {
    /// The peer address as text, for logs and per-client limits.
    public var client: String
    /// Wall-clock time of the request, seconds since 1970.
    public var wallClockSeconds: Int64

    public init(client: String, wallClockSeconds: Int64) {
        self.client = client
        self.wallClockSeconds = wallClockSeconds
    }
}
