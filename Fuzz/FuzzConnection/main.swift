import FiledropHTTP

@testable import FiledropCore

/// libFuzzer entry for `ConnectionStateMachine` with blocking work (built by
/// `scripts/fuzz.sh FuzzConnection`). The first input byte sets how often a body consumer
/// pauses for "write-back" (every 1 to 16 bytes), the second where the rest is split into
/// pieces, the third whether and when the client goes away. The rest is what a client sends.
///
/// Routes: `/slow` decides after blocking work (a password check, say); PUT and POST read a
/// body through a consumer that pauses mid-body and publishes in blocking work; anything else
/// answers at once. Blocking work runs when handed out, as a worker would. The consumer,
/// `PausingConsumer`, is the connection tests' own (Tests/FiledropTesting/PausingConsumer.swift).
///
/// Checked: a consumer is never offered bytes while its pause is out, nor after it finished
/// or was aborted; it ends exactly once (finish or abort), and never by abort while its work
/// is out; whatever the split, the bodies received, how they ended and the statuses sent are
/// those of the input offered whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnection(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 3 else { return 0 }
    let pauseEvery = 1 + Int(data[0] % 16)
    let input = Array(UnsafeRawBufferPointer(start: data + 3, count: size - 3))
    let whole = Session(pauseEvery: pauseEvery).run(input, pieces: [input.count], failAfterPiece: nil)
    var pieces: [Int] = []
    var state = UInt32(data[1]) &* 2_654_435_761 | 1
    var left = input.count
    while left > 0 {
        state = state &* 1_103_515_245 &+ 12_345
        let piece = min(left, 1 + Int((state >> 16) % 97))
        pieces.append(piece)
        left -= piece
    }
    let split = Session(pauseEvery: pauseEvery).run(input, pieces: pieces, failAfterPiece: nil)
    precondition(split == whole, "split \(pieces): \(split) vs whole \(whole)")
    // A client that goes away part-way: the invariants still hold (checked inside).
    if data[2] & 1 == 1 {
        _ = Session(pauseEvery: pauseEvery).run(input, pieces: pieces, failAfterPiece: Int(data[2] >> 1) % max(1, pieces.count))
    }
    return 0
}

/// What a run leaves: each body as received and how it ended, and the statuses sent.
struct Transcript: Equatable, CustomStringConvertible {
    var bodies: [[UInt8]] = []
    var endings: [PausingConsumer.Ending] = []
    var statuses: [Int] = []
    var closed = false

    var description: String { "bodies \(bodies.map(\.count)) endings \(endings) statuses \(statuses) closed \(closed)" }
}

final class Session {
    let responder: PausingResponder
    var machine: ConnectionStateMachine
    var buffer: [UInt8] = []
    var transcript = Transcript()
    /// Blocking work handed out and not yet run (run at once unless the client is gone).
    var outstanding: [BlockingWork] = []
    var failed = false

    init(pauseEvery: Int) {
        responder = PausingResponder(pauseEvery: pauseEvery)
        var configuration = ConnectionConfiguration()
        configuration.limits.maxHeadSize = 2048
        machine = ConnectionStateMachine(
            configuration: configuration, responder: responder,
            context: RequestContext(client: "fuzz", wallClockSeconds: 0), now: 0)
    }

    func run(_ input: [UInt8], pieces: [Int], failAfterPiece: Int?) -> Transcript {
        var offset = 0
        for (index, piece) in pieces.enumerated() where !transcript.closed {
            buffer += input[offset..<offset + piece]
            offset += piece
            drain()
            if index == failAfterPiece {
                failed = true
                machine.connectionFailed()
                transcript.closed = true
                // The work still out comes back; what must finish, finishes.
                while let work = outstanding.first {
                    outstanding.removeFirst()
                    work.run()
                    carryOut(machine.blockingWorkFinished(now: 0, wallClock: 0))
                }
            }
        }
        if !transcript.closed && !failed && machine.wantsInput && !machine.isIdle {
            _ = machine.inputEnded(now: 0, wallClock: 0)
        }
        for consumer in responder.consumers {
            transcript.bodies.append(consumer.body)
            transcript.endings.append(consumer.ending)
            precondition(!consumer.pauseOut, "a consumer left paused")
        }
        return transcript
    }

    /// Feeds the buffer while the machine takes input, as `Connection.process` does.
    func drain() {
        while !transcript.closed, machine.wantsInput, !machine.wantsLinger {
            let (consumed, action) = buffer.withUnsafeBytes { machine.process($0, now: 0, wallClock: 0) }
            precondition(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count)")
            buffer.removeFirst(consumed)
            if case .readMore = action {
                if consumed == 0 || buffer.isEmpty { return }
            } else {
                carryOut(action)
            }
        }
    }

    func carryOut(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .readMore:
            if !failed { drain() }
        case .sendInterim:
            if !failed { carryOut(machine.interimSent(now: 0)) }
        case .send(let response):
            guard !failed else { return }
            transcript.statuses.append(response.status.code)
            carryOut(machine.responseSent(now: 0))
        case .runBlocking(let work):
            if failed {
                outstanding.append(work)
                return
            }
            work.run()
            carryOut(machine.blockingWorkFinished(now: 0, wallClock: 0))
        case .close:
            if !machine.wantsLinger { transcript.closed = true }
        }
    }
}

final class PausingResponder: HTTPResponder, @unchecked Sendable {
    let pauseEvery: Int
    var consumers: [PausingConsumer] = []

    init(pauseEvery: Int) { self.pauseEvery = pauseEvery }

    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        if head.path == "/slow" {
            return .blocking("check", skippableWhenAbandoned: false, { 7 }) { value in
                .respond(Response(status: value == 7 ? .ok : .internalServerError))
            }
        }
        switch head.method {
        case .put, .post:
            let consumer = PausingConsumer(pauseEvery: pauseEvery)
            consumers.append(consumer)
            return .readBody(consumer)
        default:
            return .respond(Response(status: .noContent))
        }
    }
}
