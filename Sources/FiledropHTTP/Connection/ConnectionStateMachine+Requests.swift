/// A request from its head to its response: framing, expectations, the route's decision,
/// and the one place a response is serialized.
extension ConnectionStateMachine {
    mutating func begin(_ head: RequestHead, now: UInt64, wallClock: Int64) -> Action {
        let format = ResponseFormat(head: head)
        currentRequest = RequestInfo(method: head.method, target: head.target, version: head.version, format: format)
        let framing: BodyFraming
        let closeAfterResponse: Bool
        do {
            (framing, closeAfterResponse) = try BodyFraming.of(head)
        } catch {
            return fail(error, now: now, wallClock: wallClock)
        }
        if shuttingDown && hasBegunARequest {
            return fail(
                .serviceUnavailable("The server is shutting down; try again in a moment.", retryAfterSeconds: 2),
                now: now, wallClock: wallClock, keepBodyUnread: framing != .none)
        }
        hasBegunARequest = true
        // RFC 9110 §10.1.1: the only expectation defined is 100-continue.
        if head.headers.contains(.expect) && !(head.expectsContinue && head.headers.values(for: .expect).count == 1) {
            return fail(.expectationFailed, now: now, wallClock: wallClock, keepBodyUnread: framing != .none)
        }
        let keepAlive = head.wantsKeepAlive && !closeAfterResponse && configuration.keepAlive
        // RFC 9110 §10.1.1: a 1.0 client never waits for 100 Continue.
        let pending = PendingBody(
            framing: framing, keepAlive: keepAlive,
            expectsContinue: head.expectsContinue && head.version == .http1_1)
        let requestContext = RequestContext(
            client: context.client, wallClockSeconds: wallClock, isSecure: context.isSecure,
            securePort: context.securePort)
        var label = RequestLabel.unlabelled
        let decision = responder.route(head, context: requestContext, label: &label)
        currentRequest?.label = label
        return carryOut(decision, pending, now: now, wallClock: wallClock)
    }

    /// Acts on what the route decided about the request whose head just arrived (or whose
    /// route has just finished its blocking work).
    mutating func carryOut(_ decision: RouteDecision, _ pending: PendingBody, now: UInt64, wallClock: Int64) -> Action {
        let framing = pending.framing
        let keepAlive = pending.keepAlive && !shuttingDown
        switch decision {
        case .respond(let response):
            // The body, if any, was not read: the connection cannot be reused.
            let after: AfterResponse =
                framing == .none || framing == .length(0)
                ? (keepAlive ? .keepAlive : .close) : .lingeringClose
            return send(response, after: after, now: now, wallClock: wallClock)
        case .readBody(let consumer):
            currentRequest?.readBody = true
            let after: AfterResponse = keepAlive ? .keepAlive : .close
            let body = BodyInProgress(
                decoder: BodyDecoder(framing: framing, limits: configuration.limits), consumer: consumer,
                after: after, lastActivity: now)
            // No body, or an empty one: nothing will arrive to drive the decoder, so finish now.
            if framing == .none || framing == .length(0) {
                return finish(body, trailers: HTTPHeaders(), now: now, wallClock: wallClock)
            }
            keepBody(body)
            if pending.expectsContinue {
                state = .sendingContinue
                return .sendInterim(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            state = .readingBody
            return .readMore
        case .after(let work, let then):
            return wait(for: work, then: .route(then, pending))
        }
    }

    mutating func proceed(_ response: Deferred<Response>, after: AfterResponse, now: UInt64, wallClock: Int64) -> Action {
        switch response {
        case .ready(let response):
            return abandoned ? .close : send(response, after: after, now: now, wallClock: wallClock)
        case .after(let work, let then):
            return wait(for: work, then: .response(then, after: after))
        }
    }

    /// Sends the error response if one can still be sent, then closes: after a protocol error
    /// the rest of the stream cannot be trusted.
    /// `answer`: what the body's consumer says instead of the plain error (`failureResponse`).
    mutating func fail(
        _ error: HTTPError, now: UInt64, wallClock: Int64, keepBodyUnread: Bool = true,
        answer: Response? = nil
    ) -> Action {
        let format = currentRequest?.format ?? .text
        let after: AfterResponse = keepBodyUnread ? .lingeringClose : .close
        return send(answer ?? responder.response(for: error, format: format), after: after, now: now, wallClock: wallClock)
    }

    /// The body stops with `error`: its consumer undoes what it must, then answers.
    mutating func fail(_ error: HTTPError, ending consumer: any RequestBodyConsumer, now: UInt64, wallClock: Int64) -> Action {
        consumer.abort()
        return fail(error, now: now, wallClock: wallClock, answer: consumer.failureResponse(for: error))
    }

    mutating func send(_ response: Response, after: AfterResponse, now: UInt64, wallClock: Int64) -> Action {
        let version = currentRequest?.version ?? .http1_1
        if date.second != wallClock { date = (wallClock, HTTPDate.format(wallClock)) }
        let (head, framing) = ResponseHeadSerializer.serialize(
            response, version: version, keepAlive: after == .keepAlive && !shuttingDown, date: date.text)
        var after = after
        if after == .keepAlive && (shuttingDown || framing == .untilClose) { after = .close }
        var body = response.body
        if currentRequest?.method == .head || framing == .none { body = .empty }
        currentRequest?.refusal = response.refusal
        state = .writing(after: after, lastProgress: now)
        sendRateWindowStart = now
        sentInWindow = 0
        return .send(OutboundResponse(head: head, body: body, framing: framing, status: response.status))
    }
}
