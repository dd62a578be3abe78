@testable import FiledropCore
@testable import FiledropHTTP

/// Plays the I/O layer for a `ConnectionStateMachine` in memory: keeps a receive buffer as
/// `Connection` does, carries out every action, and records what was sent. Blocking work runs
/// inline, where a live server hands it to a worker, unless `holdsWork` keeps it for `release`.
struct ConnectionDriver {
    var machine: ConnectionStateMachine
    var buffer: [UInt8] = []
    /// Each response (head and in-memory body) and each interim `100 Continue`, as text.
    var sent: [String] = []
    /// The final responses as the machine handed them out, in order.
    var responses: [ConnectionStateMachine.OutboundResponse] = []
    /// The request each final response answered, as the machine knew it when it was sent
    /// (kind, refusal, whether the body was read): what `Connection` counts in the metrics.
    var answered: [ConnectionStateMachine.RequestInfo] = []
    var closed = false
    var now: UInt64 = 0
    /// Keeps blocking work in `held` instead of running it, as a busy worker would.
    var holdsWork = false
    var held: [BlockingWork] = []

    init(
        responder: any HTTPResponder, configuration: ConnectionConfiguration = ConnectionConfiguration(),
        context: RequestContext = RequestContext(client: "test", wallClockSeconds: 0)
    ) {
        machine = ConnectionStateMachine(configuration: configuration, responder: responder, context: context, now: 0)
    }

    /// Runs the oldest held work and carries on as the worker's answer would.
    mutating func release() {
        guard !held.isEmpty else { return }
        held.removeFirst().run()
        guard carryOut(machine.blockingWorkFinished(now: now, wallClock: 0)) else { return }
        drain()
    }

    mutating func receive(_ text: String) {
        receive(Array(text.utf8))
    }

    mutating func receive(_ bytes: [UInt8]) {
        buffer += bytes
        drain()
    }

    mutating func drain() {
        while !closed {
            let (consumed, action) = buffer.withUnsafeBytes { machine.process($0, now: now, wallClock: 0) }
            buffer.removeFirst(consumed)
            guard carryOut(action) else { return }
            if consumed == 0 && !buffer.isEmpty, case .readMore = action { return }
            if buffer.isEmpty { return }
        }
    }

    /// Returns whether processing may continue.
    mutating func carryOut(_ action: ConnectionStateMachine.Action) -> Bool {
        switch action {
        case .readMore:
            return true
        case .sendInterim(let bytes):
            sent.append(String(decoding: bytes, as: UTF8.self))
            return carryOut(machine.interimSent(now: now))
        case .runBlocking(let work):
            // Where a live server hands it to a worker; `held` lets a test look in between.
            guard !holdsWork else {
                held.append(work)
                return false
            }
            work.run()
            return carryOut(machine.blockingWorkFinished(now: now, wallClock: 0))
        case .send(let response):
            var text = String(decoding: response.head, as: UTF8.self)
            if case .bytes(let body) = response.body { text += String(decoding: body, as: UTF8.self) }
            sent.append(text)
            responses.append(response)
            if let request = machine.currentRequest { answered.append(request) }
            return carryOut(machine.responseSent(now: now))
        case .close:
            closed = true
            return false
        }
    }
}
