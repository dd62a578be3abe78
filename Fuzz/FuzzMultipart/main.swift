import FiledropHTTP

@testable import FiledropCore

/// libFuzzer entry for `MultipartParser` (built by `scripts/fuzz.sh FuzzMultipart`).
/// The boundary is fixed (`XyZ-42`, short so random inputs reach it); the first input byte
/// picks where the rest is split. Fed whole and in two pieces, the parser must report the
/// same parts, payload bytes and outcome; every step must consume within the offered bytes
/// and every `.data` range must lie inside them. Parts found also go through the file name
/// policy, which must either refuse a name or return one safe component. The delimiter search
/// must find what a byte-by-byte search finds in the input and in each piece, also with
/// delimiters planted where the input has 0xFE or 0xFD, for the parser's boundary and for a
/// longer one that turns on its skipping (11 bytes or more).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    let split = Int(data[0]) * input.count / 255

    // Small limits so that every limit is reachable by short inputs.
    var limits = MultipartLimits()
    limits.maxPartHeadSize = 256
    limits.maxPartHeaderCount = 4
    limits.maxParts = 16
    limits.maxFieldSize = 64

    for search in delimiterSearches {
        crossCheck(search, in: input, splitAt: split)
        let planted = plantingDelimiters(search.delimiter, in: input)
        planted.withUnsafeBytes { crossCheck(search, in: $0, splitAt: Int(data[0]) * $0.count / 255) }
    }

    let whole = Transcript(input, chunks: [0..<input.count], limits: limits)
    let pieces = Transcript(input, chunks: [0..<split, split..<input.count], limits: limits)
    precondition(whole.settled == pieces.settled, "split at \(split): \(pieces) vs whole \(whole)")

    let policy = FileNamePolicy()
    for part in whole.parts {
        guard let filename = part.head.filename, let stored = try? policy.storedName(from: filename) else { continue }
        precondition(!stored.isEmpty && stored.utf8.count <= 255 && stored != "." && stored != "..")
        precondition(!stored.utf8.contains(0) && !stored.contains("/") && !stored.contains("\\") && !stored.hasPrefix("."))
        precondition((try? policy.storagePath(fromComponents: [stored])) != nil, "stored name \(stored) is not a valid path")
    }
    return 0
}

let delimiterSearches = [DelimiterSearch(boundary: "XyZ-42"), DelimiterSearch(boundary: "XyZ-42XyZ-42XyZ-42")]

/// `search` must find in `bytes`, and in the pieces before and after `split`, what a
/// byte-by-byte search finds.
func crossCheck(_ search: DelimiterSearch, in bytes: UnsafeRawBufferPointer, splitAt split: Int) {
    for piece in [bytes, UnsafeRawBufferPointer(rebasing: bytes[..<split]), UnsafeRawBufferPointer(rebasing: bytes[split...])] {
        let found = search.firstMatch(in: piece)
        let expected = naiveFirstMatch(of: search.delimiter, in: piece)
        precondition(found == expected, "\(search.delimiter.count)-byte delimiter: \(found) vs naive \(expected)")
    }
}

/// `bytes` with each 0xFE replaced by the whole delimiter and each 0xFD by all of it but its
/// last byte, so that short inputs put delimiters and near misses at any offset.
func plantingDelimiters(_ delimiter: [UInt8], in bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var planted: [UInt8] = []
    for byte in bytes {
        switch byte {
        case 0xFE: planted += delimiter
        case 0xFD: planted += delimiter.dropLast()
        default: planted.append(byte)
        }
    }
    return planted
}

/// The first index where `delimiter` starts in `bytes`, or where a proper prefix of it runs
/// to the end: what `DelimiterSearch.firstMatch` must return.
func naiveFirstMatch(of delimiter: [UInt8], in bytes: UnsafeRawBufferPointer) -> DelimiterSearch.Match {
    for start in bytes.indices {
        let available = min(bytes.count - start, delimiter.count)
        guard bytes[start..<start + available].elementsEqual(delimiter[..<available]) else { continue }
        return available == delimiter.count ? .delimiter(at: start) : .partial(at: start)
    }
    return .none
}

/// What a body produced when fed in `chunks`, with the step invariants checked on the way.
struct Transcript: Equatable, CustomStringConvertible {
    struct Part: Equatable {
        var head: PartHead
        var payload: [UInt8] = []
        var ended = false
    }

    var parts: [Part] = []
    var sawEnd = false
    var failure: HTTPError?

    init(_ input: UnsafeRawBufferPointer, chunks: [Range<Int>], limits: MultipartLimits) {
        var parser = MultipartParser(boundary: "XyZ-42", limits: limits)
        for chunk in chunks {
            let buffer = UnsafeRawBufferPointer(rebasing: input[chunk])
            var offset = 0
            while true {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                let step = parser.parse(rest)
                precondition(step.consumed >= 0 && step.consumed <= rest.count)
                switch step.event {
                case .needMore:
                    precondition(step.consumed == rest.count)
                case .partBegan(let head):
                    precondition(parts.last?.ended ?? true)
                    parts.append(Part(head: head))
                case .data(let range):
                    precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= step.consumed)
                    parts[parts.count - 1].payload += rest[range]
                case .dataFromTail(let bytes):
                    precondition(!bytes.isEmpty && bytes.count < 4 + 6)
                    parts[parts.count - 1].payload += bytes
                case .partEnded:
                    parts[parts.count - 1].ended = true
                case .end:
                    sawEnd = true
                case .failed(let error):
                    failure = error
                    return
                }
                offset += step.consumed
                if case .needMore = step.event { break }
            }
        }
        if case .failed(let error)? = parser.finish() { failure = error }
        precondition(sawEnd == (failure == nil))
    }

    /// After a failure, how much of the unfinished part came out first depends on the split.
    var settled: Transcript {
        guard failure != nil else { return self }
        var copy = self
        for index in copy.parts.indices where !copy.parts[index].ended { copy.parts[index].payload = [] }
        return copy
    }

    var description: String {
        "\(parts.map { ($0.head.name, $0.head.filename, $0.payload.count, $0.ended) }) end=\(sawEnd) failure=\(String(describing: failure))"
    }
}
