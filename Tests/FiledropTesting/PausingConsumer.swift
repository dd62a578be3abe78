@testable import FiledropCore
@testable import FiledropHTTP

/// A body consumer that pauses for "write-back" after every `pauseEvery` bytes and publishes
/// in blocking work at the end, checking the `RequestBodyConsumer` contract as it goes: no
/// bytes while its pause is out or after it ended, one ending (finish or abort), never an
/// abort while its work is out. Shared by the connection tests and `FuzzConnection`
/// (`scripts/fuzz.sh` compiles this file into it).
final class PausingConsumer: RequestBodyConsumer {
    enum Ending: Equatable {
        case open, publishing, finished, aborted
    }

    let pauseEvery: Int
    var body: [UInt8] = []
    var sinceLastPause = 0
    /// How many pauses came back (their `then` ran).
    var pacings = 0
    var pauseOut = false
    /// Set by the publishing work itself, which runs even if the client is gone.
    var published = false
    var ending = Ending.open
    var aborted: Bool { ending == .aborted }

    init(pauseEvery: Int) { self.pauseEvery = pauseEvery }

    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        precondition(ending == .open, "bytes offered after the body \(ending)")
        precondition(!pauseOut, "bytes offered while the consumer's work is out")
        precondition(!bytes.isEmpty, "an empty offer")
        let room = pauseEvery - sinceLastPause
        guard bytes.count >= room else {
            body += bytes
            sinceLastPause += bytes.count
            return .accepted
        }
        body += bytes[..<room]
        sinceLastPause = 0
        pauseOut = true
        return .paused(
            accepted: room, work: BlockingWork("write-back") {},
            then: {
                self.pauseOut = false
                self.pacings += 1
            })
    }

    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        precondition(ending == .open && !pauseOut, "finished after \(ending), or while paused")
        ending = .publishing
        return .blocking(
            "publish",
            {
                self.published = true
                return self.body.count
            }
        ) { count in
            self.ending = .finished
            return .ready(Response(status: .created, body: .bytes(Array("stored \(count)".utf8))))
        }
    }

    func abort() {
        precondition(ending == .open, "aborted after \(ending)")
        precondition(!pauseOut, "aborted while its work was out")
        ending = .aborted
    }
}
