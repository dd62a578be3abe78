/// The application side of a connection: given a request head, either answer at once or
/// take the body. The engine knows nothing else of the application; tests plug in their own.
public protocol HTTPResponder: Sendable {
    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision
    /// `route`, also labelling the request for the application's metrics and logs, from the
    /// route it parsed anyway. By default the label stays `.unlabelled`.
    func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision
    /// How the connection's own errors read (a malformed head, a timeout, a body cut short):
    /// in `format`, in the application's words. By default `Response.plainError`.
    func response(for error: HTTPError, format: ResponseFormat) -> Response
    /// What answers a connection to the HTTPS port `port` that sent plain HTTP instead. By
    /// default a plain 400 naming the port; an application may say it in its reader's words.
    func plainRequestOnTLSPort(port: UInt16) -> any HTTPResponder
}

extension HTTPResponder {
    public func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision {
        route(head, context: context)
    }

    public func response(for error: HTTPError, format: ResponseFormat) -> Response {
        .plainError(error)
    }

    public func plainRequestOnTLSPort(port: UInt16) -> any HTTPResponder {
        PlainHTTPRefused(port: port)
    }
}

/// The default answer to plain HTTP on an HTTPS port: a 400 that names the port.
struct PlainHTTPRefused: HTTPResponder {
    let port: UInt16

    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        .respond(.plainError(.badRequest("Port \(port) speaks HTTPS; plain HTTP sent to it is not served.")))
    }
}

/// What a route wants after seeing the head. Deciding before any body byte is read is what
/// lets a 401 or 413 go out instead of `100 Continue` (RFC 9110 §10.1.1).
public enum RouteDecision {
    case respond(Response)
    case readBody(any RequestBodyConsumer)
    /// The decision needs blocking work first (checking a password, reading a directory):
    /// `then` decides on the loop once `work` has run on a worker.
    case after(BlockingWork, then: () -> RouteDecision)

    /// Decides after `work`, mapping its result to the decision on the loop. By default
    /// skipped when the client is gone before it starts: nobody waits for the answer any more.
    public static func blocking<Result>(
        _ label: String, skippableWhenAbandoned: Bool = true, usesCPU: Bool = false,
        _ work: @escaping () -> Result,
        then: @escaping (Result) -> RouteDecision
    ) -> RouteDecision {
        let slot = ResultSlot<Result>()
        let blocking = BlockingWork(label, skippableWhenAbandoned: skippableWhenAbandoned, usesCPU: usesCPU) {
            slot.value = work()
        }
        return .after(blocking) { then(slot.take(label)) }
    }

    /// Runs every step on the calling thread: for tests, never for an event loop.
    public func resolvedInline() -> RouteDecision {
        var decision = self
        while case .after(let work, let then) = decision {
            work.run()
            decision = then()
        }
        return decision
    }
}

/// Receives a request body as it arrives, so memory stays flat whatever the size.
/// Exactly one of `finish` or `abort` is called.
public protocol RequestBodyConsumer: AnyObject {
    /// Payload bytes, in order. Throwing stops the request with that error's response.
    /// A consumer that must wait for blocking work (publishing a finished part) says so with
    /// `.paused`; nothing is offered to it until the work is done.
    @discardableResult
    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake
    /// The body is complete; return the final response, maybe after blocking work (fsync,
    /// publishing), which then runs even if the client goes away meanwhile.
    func finish(trailers: HTTPHeaders) -> Deferred<Response>
    /// The body will never complete (disconnect, timeout, framing error): undo everything.
    /// Never called while work the consumer handed out is running.
    func abort()
    /// The answer when the body stops with `error` (its `consume` or a paused step threw,
    /// or the framing broke), asked after `abort()`; nil sends the plain error. A consumer
    /// that already made something lasting (a form's earlier files) says so here: the client
    /// must not take the error for "nothing happened" and send it all again.
    func failureResponse(for error: HTTPError) -> Response?
}

extension RequestBodyConsumer {
    public func failureResponse(for error: HTTPError) -> Response? { nil }
}

/// Facts about the connection a route may need.
public struct RequestContext: Sendable {
    /// The peer address as text, for logs and per-client limits.
    public var client: String
    /// Wall-clock time of the request, seconds since 1970.
    public var wallClockSeconds: Int64
    /// Whether the request came over TLS (the HTTPS port).
    public var isSecure: Bool
    /// The HTTPS port the connection came in on; nil for plain HTTP. The LocalSend port serves
    /// only LocalSend's routes, and they only there.
    public var securePort: UInt16?

    public init(client: String, wallClockSeconds: Int64, isSecure: Bool = false, securePort: UInt16? = nil) {
        self.client = client
        self.wallClockSeconds = wallClockSeconds
        self.isSecure = isSecure
        self.securePort = securePort
    }
}
