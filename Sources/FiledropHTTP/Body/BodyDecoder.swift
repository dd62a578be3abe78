/// Turns the bytes after a request head into payload, for any `BodyFraming` (RFC 9112 §6.3).
/// It never copies payload: each step points into the bytes just offered.
///
/// The caller loops: offer the unconsumed bytes, deliver `step.data` (if any), then act on
/// `step.event`; offer the rest (`bytes[step.consumed...]`) again while something remains and
/// the event is `.needMore`. Data and `.end` can arrive in the same step (the last bytes of a
/// `.length` body).
public struct BodyDecoder: Sendable {
    private var mode: Mode
    private var delivered: UInt64 = 0

    private enum Mode: Sendable {
        case length(remaining: UInt64)
        case chunked(ChunkedDecoder)
        case ended
    }

    public init(framing: BodyFraming, limits: HTTPLimits) {
        switch framing {
        case .none: mode = .ended
        case .length(let length): mode = length == 0 ? .ended : .length(remaining: length)
        case .chunked: mode = .chunked(ChunkedDecoder(limits: limits))
        }
    }

    /// Fully incremental: keeps its own (small, bounded) state, so the caller never re-offers bytes.
    /// Consumes a prefix of `bytes`; `step.data` is a range within `bytes` holding payload to deliver
    /// (zero-copy). Call again with the rest while `consumed < bytes.count` and the event is not
    /// `.end`/`.failed`. With `.length(n)` the decoder never consumes past byte n (pipelined requests follow).
    public mutating func decode(_ bytes: UnsafeRawBufferPointer) -> BodyDecodeStep {
        switch mode {
        case .ended:
            return BodyDecodeStep(consumed: 0, data: nil, event: .end(trailers: HTTPHeaders()))
        case .length(let remaining):
            let take = Int(clamping: min(remaining, UInt64(bytes.count)))
            let left = remaining - UInt64(take)
            delivered += UInt64(take)
            mode = left == 0 ? .ended : .length(remaining: left)
            return BodyDecodeStep(
                consumed: take,
                data: take > 0 ? 0..<take : nil,
                event: left == 0 ? .end(trailers: HTTPHeaders()) : .needMore
            )
        case .chunked(var decoder):
            // Leave `mode` without a second reference while the decoder mutates (no CoW copy).
            mode = .ended
            let step = decoder.decode(bytes)
            mode = .chunked(decoder)
            if let data = step.data { delivered += UInt64(data.count) }
            return step
        }
    }

    /// Payload bytes certain to arrive before the body ends: the rest of a Content-Length
    /// body, or of the chunk being read. A reader may wait for that many before it reads again.
    public var bytesCertainToFollow: UInt64 {
        switch mode {
        case .ended: 0
        case .length(let remaining): remaining
        case .chunked(let decoder): decoder.chunkBytesRemaining
        }
    }

    public var isComplete: Bool {
        switch mode {
        case .ended: true
        case .length: false
        case .chunked(let decoder): decoder.isComplete
        }
    }

    /// Payload bytes delivered so far.
    public var payloadBytes: UInt64 { delivered }
}

/// What one call to `BodyDecoder.decode` did.
public struct BodyDecodeStep: Equatable, Sendable {
    public var consumed: Int
    /// Payload inside the bytes just offered.
    public var data: Range<Int>?
    public var event: BodyDecodeEvent

    public init(consumed: Int, data: Range<Int>?, event: BodyDecodeEvent) {
        self.consumed = consumed
        self.data = data
        self.event = event
    }
}

public enum BodyDecodeEvent: Equatable, Sendable {
    /// Consumed everything offered (or returned data and wants to be called again).
    case needMore
    /// The body is complete; `trailers` holds the chunked trailer section (empty otherwise).
    case end(trailers: HTTPHeaders)
    case failed(HTTPError)
}
