import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Feeds a parser the same bytes three ways - whole, one byte at a time, and split in two at
/// every offset - and requires the same outcome from each (swift-nio's
/// ByteToMessageDecoderVerifier, picohttpparser's test.c).
enum ThreeWayFeeding {
    static func splittings(of bytes: [UInt8]) -> [[[UInt8]]] {
        var result: [[[UInt8]]] = [[bytes], bytes.map { [$0] }]
        for offset in stride(from: 1, to: bytes.count, by: 1) {
            result.append([Array(bytes[..<offset]), Array(bytes[offset...])])
        }
        return result
    }

    /// Runs `feed` on every splitting, expects equal outcomes, returns the whole-buffer one.
    static func outcome<Outcome: Equatable>(
        of bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ feed: ([[UInt8]]) -> Outcome
    ) -> Outcome {
        let whole = feed([bytes])
        for pieces in splittings(of: bytes).dropFirst() {
            let other = feed(pieces)
            if other != whole {
                Issue.record("pieces \(pieces.map(\.count)) gave \(other), whole gave \(whole)", sourceLocation: sourceLocation)
                break
            }
        }
        return whole
    }

    /// The head parser as the connection drives it: keep the bytes, append, offer them again.
    static func parseHead(
        _ bytes: [UInt8], limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HeadParseResult {
        outcome(of: bytes, sourceLocation: sourceLocation) { pieces in
            var parser = HTTPHeadParser(limits: limits)
            var buffer: [UInt8] = []
            var result = HeadParseResult.needMore
            for piece in pieces {
                buffer += piece
                result = buffer.withUnsafeBytes { parser.parse($0) }
                if result != .needMore { break }
            }
            return result
        }
    }

    /// Everything a body decoder produced from some bytes.
    struct DecodedBody: Equatable, CustomStringConvertible {
        var payload: [UInt8] = []
        /// `.needMore` when the bytes ran out first.
        var event: BodyDecodeEvent = .needMore
        /// Bytes the decoder consumed in total.
        var consumed = 0

        var description: String { "payload \(payload.count) bytes, \(event), consumed \(consumed)" }
    }

    /// The body decoder as the connection drives it: offer each piece, re-offer the rest
    /// after every step, check the step stays inside what was offered.
    static func decodeBody(
        _ bytes: [UInt8], framing: BodyFraming, limits: HTTPLimits = HTTPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DecodedBody {
        outcome(of: bytes, sourceLocation: sourceLocation) { pieces in
            var decoder = BodyDecoder(framing: framing, limits: limits)
            var decoded = DecodedBody()
            pieces: for piece in pieces {
                var offset = 0
                while true {
                    let rest = Array(piece[offset...])
                    let step = rest.withUnsafeBytes { decoder.decode($0) }
                    #expect(step.consumed >= 0 && step.consumed <= rest.count, sourceLocation: sourceLocation)
                    if let data = step.data {
                        #expect(data.lowerBound >= 0 && data.upperBound <= step.consumed, sourceLocation: sourceLocation)
                        decoded.payload += rest[data]
                    }
                    offset += step.consumed
                    decoded.consumed += step.consumed
                    decoded.event = step.event
                    if step.event != .needMore { break pieces }
                    if offset == piece.count { break }
                    if step.data == nil {
                        Issue.record("decoder stopped early without data or event", sourceLocation: sourceLocation)
                        break pieces
                    }
                }
            }
            #expect(decoder.payloadBytes == UInt64(decoded.payload.count), sourceLocation: sourceLocation)
            if case .end = decoded.event { #expect(decoder.isComplete, sourceLocation: sourceLocation) }
            return decoded
        }
    }
}
