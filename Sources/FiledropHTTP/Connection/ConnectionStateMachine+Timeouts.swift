/// Deadlines (head, body, idle, write, linger), the send-rate floor and graceful shutdown.
extension ConnectionStateMachine {
    /// Called periodically; returns an action when a deadline has passed.
    public mutating func checkTimeouts(now: UInt64, wallClock: Int64) -> Action? {
        switch state {
        case .idle(let since):
            let graceOver = firstRequestGraceEnds.map { now >= $0 } ?? false
            guard graceOver || now >= since + configuration.idleTimeout else { return nil }
            state = .closed
            return .close
        case .readingHead(let started):
            guard now >= started + configuration.headTimeout else { return nil }
            currentRequest = RequestInfo(method: .other("-"), target: "-", version: .http1_1, format: .text)
            return fail(.timeout, now: now, wallClock: wallClock)
        case .readingBody, .sendingContinue:
            guard let lastActivity = body?.lastActivity, now >= lastActivity + configuration.bodyTimeout,
                let consumer = takeBody()?.consumer
            else { return nil }
            return fail(.timeout, ending: consumer, now: now, wallClock: wallClock)
        case .waiting:
            // fsync and friends take what they take; the client is not the one who is slow.
            return nil
        case .writing(_, let lastProgress):
            if now >= lastProgress + configuration.writeTimeout || sendsTooSlowly(now: now) {
                state = .closed
                return .close
            }
            return nil
        case .lingering(let until):
            guard now >= until else { return nil }
            state = .closed
            return .close
        case .closed:
            return nil
        }
    }

    /// A client that reads a response slower than `minSendRate` over a whole window holds a
    /// connection slot for nothing (lighttpd's and nginx's send timeouts, as a rate): true
    /// once a window ends below the rate. Each window starts afresh.
    fileprivate mutating func sendsTooSlowly(now: UInt64) -> Bool {
        let rate = configuration.minSendRate
        let window = configuration.sendRateWindow
        guard rate > 0, window > 0, now >= sendRateWindowStart &+ window else { return false }
        let elapsed = now - sendRateWindowStart
        let tooSlow = sentInWindow.multipliedFullWidth(by: 1_000_000_000) < rate.multipliedFullWidth(by: elapsed)
        sendRateWindowStart = now
        sentInWindow = 0
        return tooSlow
    }

    /// Graceful shutdown: connections idle between requests close now; a request in progress
    /// finishes, and its response closes the connection; a later request on it gets 503. A
    /// connection accepted but not yet asked anything has `firstRequestGrace` for its first
    /// request, which is served: its client is sending it, and under socket activation it
    /// may have been accepted just as the restart began.
    public mutating func beginShutdown(now: UInt64) -> Action? {
        shuttingDown = true
        switch state {
        case .idle where hasBegunARequest:
            state = .closed
            return .close
        case .idle:
            firstRequestGraceEnds = now &+ Self.firstRequestGrace
            return nil
        default:
            return nil
        }
    }

    /// How long a connection that has sent nothing yet may wait, once shutdown began.
    static let firstRequestGrace: UInt64 = 1_000_000_000

    /// The drain deadline passed. A request whose body is still arriving, with no response
    /// begun, is answered 503 with `Connection: close` (and a lingering close, so the client
    /// reads it rather than a reset); its body is discarded. Nil when no answer can be sent
    /// (a response has begun, or work is under way): then `abort`.
    public mutating func drainDeadlinePassed(now: UInt64, wallClock: Int64) -> Action? {
        guard case .readingBody = state else { return nil }
        takeBody()?.consumer.abort()
        return fail(
            .serviceUnavailable(
                "The server is restarting and could not wait for this upload to finish; "
                    + "nothing of it was kept. Send it again in a moment.", retryAfterSeconds: 5),
            now: now, wallClock: wallClock)
    }

    /// The drain deadline passed: abort whatever is still running.
    public mutating func abort() {
        connectionFailed()
    }
}
