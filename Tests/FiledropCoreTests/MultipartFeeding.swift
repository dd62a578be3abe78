import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// A part as the upload handler would see it: its head and every payload byte.
struct ReceivedPart: Equatable {
    var head: PartHead
    var payload: [UInt8] = []
    var ended = false

    var text: String { String(decoding: payload, as: UTF8.self) }
}

/// Everything a body produced: the parts, whether `.end` came, and the failure if any.
struct MultipartOutcome: Equatable {
    var parts: [ReceivedPart] = []
    var sawEnd = false
    var failure: HTTPError?

    /// What must not depend on how the body was split. After a failure, how much of the
    /// unfinished part was handed out before the parser noticed does depend on it.
    var settled: MultipartOutcome {
        guard failure != nil else { return self }
        var copy = self
        for index in copy.parts.indices where !copy.parts[index].ended { copy.parts[index].payload = [] }
        return copy
    }
}

/// Feeds `body` to a fresh parser in the given chunks, the way the connection code will
/// (offer the rest again until `.needMore`), checks the step invariants on the way, and
/// returns what came out.
func feedMultipart(_ body: [UInt8], boundary: String, chunks: [Range<Int>], limits: MultipartLimits = MultipartLimits())
    -> MultipartOutcome
{
    var parser = MultipartParser(boundary: boundary, limits: limits)
    var outcome = MultipartOutcome()
    for chunk in chunks {
        let buffer = Array(body[chunk])
        var offset = 0
        while true {
            let step = buffer[offset...].withUnsafeBytes { parser.parse($0) }
            #expect(step.consumed >= 0 && step.consumed <= buffer.count - offset)
            let base = offset
            offset += step.consumed
            switch step.event {
            case .needMore:
                #expect(offset == buffer.count, "needMore must mean every byte was consumed")
            case .partBegan(let head):
                #expect(outcome.parts.last?.ended ?? true)
                outcome.parts.append(ReceivedPart(head: head))
            case .data(let range):
                #expect(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= step.consumed)
                outcome.parts[outcome.parts.count - 1].payload += buffer[(base + range.lowerBound)..<(base + range.upperBound)]
            case .dataFromTail(let bytes):
                #expect(!bytes.isEmpty)
                outcome.parts[outcome.parts.count - 1].payload += bytes
            case .partEnded:
                outcome.parts[outcome.parts.count - 1].ended = true
            case .end:
                outcome.sawEnd = true
            case .failed(let error):
                outcome.failure = error
                return outcome
            }
            if case .needMore = step.event { break }
        }
    }
    if case .failed(let error)? = parser.finish() { outcome.failure = error }
    return outcome
}

/// The three ways every parser is fed: whole, one byte at a time, and split in two at every
/// offset. Returns the whole-body outcome after checking the others match it.
func feedMultipartThreeWays(
    _ body: [UInt8], boundary: String, limits: MultipartLimits = MultipartLimits(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> MultipartOutcome {
    let whole = feedMultipart(body, boundary: boundary, chunks: [0..<body.count], limits: limits)
    let bytewise = feedMultipart(body, boundary: boundary, chunks: (0..<body.count).map { $0..<$0 + 1 }, limits: limits)
    #expect(bytewise.settled == whole.settled, "one byte at a time", sourceLocation: sourceLocation)
    for split in 0...body.count {
        let halves = feedMultipart(body, boundary: boundary, chunks: [0..<split, split..<body.count], limits: limits)
        if halves.settled != whole.settled {
            Issue.record("split at \(split) differs: \(halves) vs \(whole)", sourceLocation: sourceLocation)
            break
        }
    }
    return whole
}

/// A body built from text lines, with CRLF written out explicitly by the caller.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
