/// What the machine does while blocking work it handed out runs on a worker, and once it
/// is back: the route decides, a paused body takes the bytes it left, or the response
/// goes out. After a disconnect only what must finish (publishing) goes on.
extension ConnectionStateMachine {
    /// The work of the last `.runBlocking` is done: go on with what was waiting for it. After
    /// the connection closed, this only finishes what must finish (publishing) and cleans up.
    public mutating func blockingWorkFinished(now: UInt64, wallClock: Int64) -> Action {
        guard let continuation = waitingFor.take() else { preconditionFailure("blocking work finished with nothing waiting") }
        switch continuation {
        case .route(let decide, let pending):
            let decision = decide()
            guard !abandoned else {
                if case .readBody(let consumer) = decision { consumer.abort() }
                return .close
            }
            return carryOut(decision, pending, now: now, wallClock: wallClock)
        case .body(let integrate):
            guard var body = takeBody() else { preconditionFailure("a paused body without one") }
            do {
                try integrate()
            } catch {
                guard !abandoned else {
                    body.consumer.abort()
                    return .close
                }
                return fail(error, ending: body.consumer, now: now, wallClock: wallClock)
            }
            guard !abandoned else {
                body.consumer.abort()
                return .close
            }
            return offerHeld(&body, now: now, wallClock: wallClock)
        case .response(let next, let after):
            return proceed(next(), after: after, now: now, wallClock: wallClock)
        }
    }

    /// The work of the last `.runBlocking` was not run: the workers' queue was full, or the
    /// connection was gone before it started (only work that may be skipped is refused).
    public mutating func blockingWorkRefused(now: UInt64, wallClock: Int64) -> Action {
        guard let continuation = waitingFor.take() else { preconditionFailure("blocking work refused with nothing waiting") }
        guard case .route(_, let pending) = continuation else { preconditionFailure("only a route's question may be refused") }
        guard !abandoned else { return .close }
        return fail(
            .serviceUnavailable("The server is busy; try again in a moment.", retryAfterSeconds: 1),
            now: now, wallClock: wallClock, keepBodyUnread: pending.framing != .none)
    }

    /// Hands `work` out; `continuation` runs when it is back.
    mutating func wait(for work: BlockingWork, then continuation: Continuation) -> Action {
        waitingFor = continuation
        if !abandoned { state = .waiting }
        return .runBlocking(work)
    }
}
