/// Reading a request body: decoded bytes go to the consumer, which may pause for blocking
/// work; what it did not take, and what the decoder said after it, wait in `BodyInProgress`.
extension ConnectionStateMachine {
    /// `process` while a body arrives.
    mutating func readBody(_ input: UnsafeRawBufferPointer, now: UInt64, wallClock: Int64) -> (consumed: Int, action: Action) {
        // Taken out while decoding, so its buffers stay uniquely referenced.
        guard var body = takeBody() else { preconditionFailure("reading a body without one") }
        body.lastActivity = now
        var consumed = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: input[consumed...])
            let step = body.decoder.decode(rest)
            consumed += step.consumed
            if let data = step.data, !data.isEmpty {
                currentRequest?.bodyBytes += UInt64(data.count)
                let bytes = UnsafeRawBufferPointer(rebasing: rest[data])
                if let stopped = deliver(bytes, of: &body, eventAfter: step.event, now: now, wallClock: wallClock) {
                    // A pause keeps the input after these bytes; after an error it cannot be trusted.
                    if case .runBlocking = stopped { return (consumed, stopped) }
                    return (input.count, stopped)
                }
            }
            switch step.event {
            case .needMore:
                if consumed < input.count && step.consumed > 0 { continue }
                keepBody(body)
                return (consumed, .readMore)
            case .end(let trailers):
                return (consumed, finish(body, trailers: trailers, now: now, wallClock: wallClock))
            case .failed(let error):
                return (input.count, fail(error, ending: body.consumer, now: now, wallClock: wallClock))
            }
        }
    }

    /// Offers decoded body bytes to the consumer: nil when it took them all. Otherwise what
    /// to do now: its error answered (the consumer aborted), or its work handed out, with the
    /// bytes it left and the decoder's `eventAfter` held for when the work is back.
    fileprivate mutating func deliver(
        _ bytes: UnsafeRawBufferPointer, of body: inout BodyInProgress, eventAfter: BodyDecodeEvent?,
        now: UInt64, wallClock: Int64
    ) -> Action? {
        switch offer(bytes, to: body.consumer) {
        case .success(.accepted):
            return nil
        case .failure(let error):
            return fail(error, ending: body.consumer, now: now, wallClock: wallClock)
        case .success(.paused(let accepted, let work, let then)):
            body.held = Array(UnsafeRawBufferPointer(rebasing: bytes[accepted...]))
            body.eventAfterHeld = eventAfter
            keepBody(body)
            return wait(for: work, then: .body(then))
        }
    }

    /// Offers the bytes kept while the consumer was paused, then acts on what the decoder
    /// said after them.
    mutating func offerHeld(_ body: inout BodyInProgress, now: UInt64, wallClock: Int64) -> Action {
        let held = body.held
        let eventAfter = body.eventAfterHeld
        body.held = []
        if !held.isEmpty,
            let stopped = held.withUnsafeBytes({ deliver($0, of: &body, eventAfter: eventAfter, now: now, wallClock: wallClock) })
        {
            return stopped
        }
        switch body.eventAfterHeld.take() {
        case .end(let trailers)?:
            return finish(body, trailers: trailers, now: now, wallClock: wallClock)
        case .failed(let error)?:
            return fail(error, ending: body.consumer, now: now, wallClock: wallClock)
        case .needMore?, nil:
            body.lastActivity = now
            keepBody(body)
            state = .readingBody
            return .readMore
        }
    }

    /// `consume` with its typed error as a value (closures over buffers rethrow untyped).
    private func offer(_ bytes: UnsafeRawBufferPointer, to consumer: any RequestBodyConsumer) -> Result<BodyIntake, HTTPError> {
        do throws(HTTPError) {
            return .success(try consumer.consume(bytes))
        } catch {
            return .failure(error)
        }
    }

    /// The body is complete: the consumer's response, after whatever work it needs.
    mutating func finish(_ body: BodyInProgress, trailers: HTTPHeaders, now: UInt64, wallClock: Int64) -> Action {
        proceed(body.consumer.finish(trailers: trailers), after: body.after, now: now, wallClock: wallClock)
    }

    /// Takes the body in progress out (to decode it, or to end it).
    mutating func takeBody() -> BodyInProgress? {
        bodyBytesCertainToFollow = 0
        return body.take()
    }

    mutating func keepBody(_ kept: BodyInProgress) {
        bodyBytesCertainToFollow = kept.decoder.bytesCertainToFollow
        body = kept
    }
}
