import FiledropCore
import FiledropHTTP

/// libFuzzer entry for `BodyDecoder` with chunked framing (built by `scripts/fuzz.sh FuzzChunked`).
/// The first input byte picks where the rest is split; decoding the whole buffer and the two
/// pieces must give the same payload, event and consumed count. Every step must stay inside
/// the bytes offered and make progress. The same bytes also go through `.length(n)` framing,
/// with n from the second byte, which must never consume past n.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunked(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 1 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    let split = Int(data[0]) * input.count / 255

    var limits = HTTPLimits()
    limits.maxChunkLineSize = 64
    limits.maxTrailerSize = 128
    limits.maxHeaderCount = 4

    let expected = decode([input], framing: .chunked, limits: limits)
    let pieces = [UnsafeRawBufferPointer(rebasing: input[..<split]), UnsafeRawBufferPointer(rebasing: input[split...])]
    let actual = decode(pieces, framing: .chunked, limits: limits)
    precondition(actual == expected, "split at \(split) gave \(actual), whole gave \(expected)")

    let length = UInt64(data[1])
    let byLength = decode(pieces, framing: .length(length), limits: limits)
    precondition(byLength.consumed == min(Int(length), input.count))
    precondition(byLength.payload == Array(input[..<byLength.consumed]))
    return 0
}

struct Decoded: Equatable {
    var payload: [UInt8] = []
    var event: BodyDecodeEvent = .needMore
    var consumed = 0
}

/// Drives the decoder the way the connection does and checks each step.
func decode(_ pieces: [UnsafeRawBufferPointer], framing: BodyFraming, limits: HTTPLimits) -> Decoded {
    var decoder = BodyDecoder(framing: framing, limits: limits)
    var decoded = Decoded()
    for piece in pieces {
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: piece[offset...])
            let step = decoder.decode(rest)
            precondition(step.consumed >= 0 && step.consumed <= rest.count)
            if let range = step.data {
                precondition(range.lowerBound >= 0 && range.upperBound <= step.consumed && !range.isEmpty)
                decoded.payload += rest[range]
            }
            offset += step.consumed
            decoded.consumed += step.consumed
            decoded.event = step.event
            precondition(decoder.payloadBytes == UInt64(decoded.payload.count))
            switch step.event {
            case .end:
                precondition(decoder.isComplete)
                return decoded
            case .failed:
                precondition(!decoder.isComplete)
                return decoded
            case .needMore:
                if offset == piece.count { break }
                precondition(step.data != nil, "stopped without data, event or consuming everything")
                continue
            }
            break
        }
    }
    return decoded
}
