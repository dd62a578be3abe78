import FiledropCore
import FiledropHTTP

/// libFuzzer entry for `HTTPHeadParser` (built by `scripts/fuzz.sh FuzzHTTPHead`).
/// The first input byte picks where the rest is split; the parser must give the same answer
/// for the whole buffer and for the buffer offered in two steps, and a complete head must end
/// with CRLFCRLF inside the limits. A completed head also goes through `BodyFraming.of`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let split = Int(data[0]) * input.count / 255

    // Small limits so that every limit is reachable by short inputs.
    var limits = HTTPLimits()
    limits.maxHeadSize = 512
    limits.maxURILength = 64
    limits.maxHeaderCount = 8

    var whole = HTTPHeadParser(limits: limits)
    let expected = whole.parse(input)

    var pieces = HTTPHeadParser(limits: limits)
    let first = pieces.parse(UnsafeRawBufferPointer(rebasing: input[..<split]))
    let second = first == .needMore ? pieces.parse(input) : first
    precondition(second == expected, "split at \(split) gave \(second), whole gave \(expected)")

    if case .complete(let head, let length) = expected {
        precondition(length >= 4 && length <= input.count && length <= limits.maxHeadSize)
        precondition(input[length - 4] == 13 && input[length - 3] == 10 && input[length - 2] == 13 && input[length - 1] == 10)
        // What follows the head does not change it.
        var exact = HTTPHeadParser(limits: limits)
        precondition(exact.parse(UnsafeRawBufferPointer(rebasing: input[..<length])) == expected)
        _ = try? BodyFraming.of(head)
    }
    return 0
}
