/// What the server tells the application about its traffic, for the access log and the
/// metrics: each request whose response was written or cut off, and each connection
/// refused before any request. Called on the thread of the loop that served the connection,
/// once per request: anything slow belongs on a queue of the observer's own. A class, so
/// that each connection holds it as one reference.
public protocol ServerObserver: AnyObject, Sendable {
    /// `request` in numbers; `text` gives its target and client, copied out of the
    /// connection only when asked for (a request that is counted but not logged needs none).
    func requestFinished(_ request: FinishedRequest, text: () -> RequestText)
    /// A connection answered 503 and closed before any request: every slot, or the address's
    /// share of them, was taken.
    func connectionRefused()
}

/// A request as it ended: what was asked, what was answered, how long it took.
public struct FinishedRequest {
    public var method: HTTPMethod
    public var status: HTTPStatus
    /// What the route labelled the request (`.unlabelled` when none did).
    public var label: RequestLabel
    /// The label of the refusal, when the response was one (`Response.refusal`).
    public var refusal: RequestLabel?
    /// Whether the route took the body.
    public var readBody: Bool
    /// Request body bytes read.
    public var bytesReceived: UInt64
    /// Response body bytes written (without head and chunk framing).
    public var bytesSent: UInt64
    /// From the wakeup that read the request's first byte until its response was written or cut.
    public var durationNanoseconds: UInt64
    /// The connection closed before the whole response was written.
    public var responseCut: Bool
    /// The loop that served it (an observer may keep a shard per loop).
    public var loop: Int

    public init(
        method: HTTPMethod, status: HTTPStatus, label: RequestLabel, refusal: RequestLabel?, readBody: Bool,
        bytesReceived: UInt64, bytesSent: UInt64, durationNanoseconds: UInt64, responseCut: Bool, loop: Int
    ) {
        self.method = method
        self.status = status
        self.label = label
        self.refusal = refusal
        self.readBody = readBody
        self.bytesReceived = bytesReceived
        self.bytesSent = bytesSent
        self.durationNanoseconds = durationNanoseconds
        self.responseCut = responseCut
        self.loop = loop
    }
}

/// The words of a finished request, for a log line.
public struct RequestText {
    /// The request-target as sent.
    public var target: String
    /// The peer's address as text.
    public var client: String

    public init(target: String, client: String) {
        self.target = target
        self.client = client
    }
}
