/// One HTTP/1.1 connection as a state machine: the I/O layer feeds it bytes, time and
/// write completions, and carries out the action each call returns (swift-nio's
/// `HTTPServerUpgraderStateMachine`, hummingbird's `HTTPConnectionStateHandler`).
/// It owns the request head parser, the body decoder and the body consumer of the request
/// in progress; memory per connection is bounded by the limits, not by the body size.
public struct ConnectionStateMachine {
    /// What the I/O layer must do next.
    public enum Action {
        /// Wait until more bytes arrive (the buffer may be empty or hold a partial head).
        case readMore
        /// Write these bytes (`100 Continue`), then call `interimSent` and go on reading.
        case sendInterim([UInt8])
        /// Run this on a worker thread (it may block), stop reading meanwhile, then call
        /// `blockingWorkFinished` (or `blockingWorkRefused`) on this connection's loop.
        /// Handed out even after the connection closed, when an upload that arrived whole
        /// still has to be published.
        case runBlocking(BlockingWork)
        /// Write the response, then call `responseSent`. Stop reading meanwhile: that is the
        /// backpressure on pipelining clients.
        case send(OutboundResponse)
        /// Close the connection now.
        case close
    }

    /// A serialized head and the body to follow.
    public struct OutboundResponse {
        public var head: [UInt8]
        /// Already `.empty` for HEAD requests and bodiless statuses.
        public var body: ResponseBody
        public var framing: ResponseHeadSerializer.BodyFraming
        /// The status, for the access log.
        public var status: HTTPStatus
    }

    /// After a response: keep the connection, close it, or half-close it and drain what the
    /// client is still sending so that it reads our answer instead of a reset.
    @usableFromInline
    enum AfterResponse { case keepAlive, close, lingeringClose }

    /// The request being served, kept for the access log, the metrics and the response.
    public struct RequestInfo: Sendable {
        public var method: HTTPMethod
        public var target: String
        public var version: HTTPVersion
        public var format: ResponseFormat
        public var bodyBytes: UInt64 = 0
        /// What the route said the request is; `.unlabelled` until routed.
        public var label = RequestLabel.unlabelled
        /// The route took the body (an upload started or was under way).
        public var readBody = false
        /// Why the response refuses the request, as the application labelled it (`Response.refusal`).
        public var refusal: RequestLabel?
    }

    /// Kept small and trivial on purpose (the body in progress lives in `body`): the I/O
    /// layer asks `isIdle` and friends several times per request, and a large enum is
    /// copied whole for each such look.
    @usableFromInline
    enum State {
        /// Between requests (or before the first): nothing buffered yet.
        case idle(since: UInt64)
        case readingHead(started: UInt64)
        /// The body's decoder and consumer are in `body`.
        case readingBody
        /// `100 Continue` is being written; the body follows.
        case sendingContinue
        /// Blocking work was handed out; what follows it is in `waitingFor`.
        case waiting
        case writing(after: AfterResponse, lastProgress: UInt64)
        /// The response is out and the write side shut: discard input until EOF or the deadline.
        case lingering(until: UInt64)
        case closed
    }

    struct BodyInProgress {
        var decoder: BodyDecoder
        var consumer: any RequestBodyConsumer
        var after: AfterResponse
        var lastActivity: UInt64
        /// Decoded body bytes offered while the consumer was paused and not taken yet.
        var held: [UInt8] = []
        /// What the decoder said after `held` (the body's end, or an error), still to act on.
        var eventAfterHeld: BodyDecodeEvent?
    }

    /// What happens once the blocking work handed out is done.
    enum Continuation {
        /// The route decides (a password was checked, a directory read).
        case route(() -> RouteDecision, PendingBody)
        /// The consumer integrates the work's result, then is offered `body.held`.
        case body(() throws(HTTPError) -> Void)
        /// The final response, or more work on the way to it.
        case response(() -> Deferred<Response>, after: AfterResponse)
    }

    /// How the body of a request whose route is still deciding will be read.
    struct PendingBody {
        var framing: BodyFraming
        var keepAlive: Bool
        var expectsContinue: Bool
    }

    let configuration: ConnectionConfiguration
    let responder: any HTTPResponder
    let context: RequestContext
    private var parser: HTTPHeadParser
    /// Readable by the inlined state questions (`isIdle`...): the I/O layer keeps the machine
    /// in a class, and calling a getter across modules copied the whole machine (every
    /// reference in it retained and released) several times per request.
    @usableFromInline var state: State
    /// The request body being read: set exactly while `state` is `.readingBody`; changed
    /// only through `takeBody()` and `keepBody(_:)`, which keep the count below in step.
    var body: BodyInProgress?
    /// Body bytes certain to arrive before the request being read ends; 0 outside a body.
    /// Stored (not asked of the decoder) for the same reason as `state` is readable.
    public internal(set) var bodyBytesCertainToFollow: UInt64 = 0
    /// Set while `state` is `.waiting` (and after the connection closed during the wait,
    /// until the work is back).
    var waitingFor: Continuation?
    /// The connection closed while work was out: what comes back is cleaned up, not answered.
    var abandoned = false
    var shuttingDown = false
    /// Whether a request has begun on this connection (a shutdown closes it when idle again).
    var hasBegunARequest = false
    /// Shutdown began before the first request: the connection closes if none came by then.
    var firstRequestGraceEnds: UInt64?
    /// Bytes of the response written since `sendRateWindowStart` (`minSendRate`).
    var sentInWindow: UInt64 = 0
    var sendRateWindowStart: UInt64 = 0
    /// The Date header of the current second: formatted once a second per connection, with
    /// no lock shared between event loops (a kept-alive client asks many times a second).
    var date: (second: Int64, text: String) = (-1, "")
    /// The request currently served (nil between requests), for the access log.
    public internal(set) var currentRequest: RequestInfo?

    public init(configuration: ConnectionConfiguration, responder: any HTTPResponder, context: RequestContext, now: UInt64) {
        self.configuration = configuration
        self.responder = responder
        self.context = context
        self.parser = HTTPHeadParser(limits: configuration.limits)
        self.state = .idle(since: now)
    }

    /// True while nothing of a request has arrived: such a connection may be closed at once
    /// on shutdown.
    @inlinable
    public var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// True while a request's head is arriving: begun, not yet whole.
    public var isReadingHead: Bool {
        if case .readingHead = state { return true }
        return false
    }

    @inlinable
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    @inlinable
    public var isWriting: Bool {
        switch state {
        case .writing, .sendingContinue: return true
        default: return false
        }
    }

    /// True while `100 Continue` is being written (`interimSent` follows, not `responseSent`).
    @inlinable
    public var isSendingContinue: Bool {
        if case .sendingContinue = state { return true }
        return false
    }

    /// True while blocking work is out: the I/O layer neither reads nor writes meanwhile.
    @inlinable
    public var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// True while input is wanted: reading a request or draining after a lingering close.
    @inlinable
    public var wantsInput: Bool {
        switch state {
        case .idle, .readingHead, .readingBody, .lingering: return true
        case .sendingContinue, .waiting, .writing, .closed: return false
        }
    }

    /// Offers the buffered input. Returns how many bytes to drop from the front of the buffer
    /// and what to do. Call again while it consumes bytes and returns `.readMore` with input
    /// left; a partial head is never consumed (the buffer keeps it).
    public mutating func process(_ input: UnsafeRawBufferPointer, now: UInt64, wallClock: Int64) -> (
        consumed: Int, action: Action
    ) {
        switch state {
        case .idle:
            guard !input.isEmpty else { return (0, .readMore) }
            state = .readingHead(started: now)
            return process(input, now: now, wallClock: wallClock)
        case .readingHead:
            switch parser.parse(input) {
            case .needMore:
                return (0, .readMore)
            case .failed(let error):
                currentRequest = RequestInfo(method: .other("-"), target: "-", version: .http1_1, format: .text)
                return (input.count, fail(error, now: now, wallClock: wallClock))
            case .complete(let head, let length):
                parser.reset()
                return (length, begin(head, now: now, wallClock: wallClock))
            }
        case .readingBody:
            return readBody(input, now: now, wallClock: wallClock)
        case .sendingContinue, .waiting, .writing:
            // The I/O layer does not read while it writes or while blocking work is out.
            return (0, .readMore)
        case .lingering, .closed:
            return (input.count, .readMore)
        }
    }

    /// The whole response was written.
    public mutating func responseSent(now: UInt64) -> Action {
        guard case .writing(let after, _) = state else { return .close }
        currentRequest = nil
        switch after {
        case .keepAlive where !shuttingDown:
            state = .idle(since: now)
            return .readMore
        case .lingeringClose:
            state = .lingering(until: now + configuration.lingerTimeout)
            return .close
        case .keepAlive, .close:
            state = .closed
            return .close
        }
    }

    /// `100 Continue` is out: read the body.
    public mutating func interimSent(now: UInt64) -> Action {
        guard case .sendingContinue = state else { return .close }
        body?.lastActivity = now
        state = .readingBody
        return .readMore
    }

    /// Whether the I/O layer should half-close and keep draining instead of closing at once.
    @inlinable
    public var wantsLinger: Bool {
        if case .lingering = state { return true }
        return false
    }

    /// `bytes` of the response were written.
    public mutating func writeProgressed(_ bytes: Int, now: UInt64) {
        guard case .writing(let after, _) = state else { return }
        state = .writing(after: after, lastProgress: now)
        sentInWindow &+= UInt64(bytes)
    }

    /// The peer closed its side (read returned 0).
    public mutating func inputEnded(now: UInt64, wallClock: Int64) -> Action {
        switch state {
        case .writing:
            // A half-closed client may still read the response (`curl -T` does this).
            return .readMore
        case .waiting:
            connectionFailed()
            return .close
        default:
            takeBody()?.consumer.abort()
            state = .closed
            return .close
        }
    }

    /// The connection died under us (reset, write error): undo any upload in progress. Work
    /// already out keeps what it owns until it is back (`blockingWorkFinished`).
    public mutating func connectionFailed() {
        if case .waiting = state {
            abandoned = true
        } else {
            takeBody()?.consumer.abort()
        }
        state = .closed
    }
}
