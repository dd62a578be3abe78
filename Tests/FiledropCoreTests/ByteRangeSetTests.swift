import Testing

@testable import FiledropCore
@testable import FiledropHTTP

/// Multi-range clean-up (RFC 9110 §14.2): sorted, overlaps and near neighbours merged, so no
/// request makes us send a byte twice.
@Suite struct ByteRangeSetTests {
    @Test(
        arguments: [
            // Disjoint and far apart: kept, sorted.
            ([500...599, 0...9], [0...9, 500...599]),
            // Overlapping: merged.
            ([0...99, 50...149], [0...149]),
            // Contained: swallowed.
            ([0...999, 10...20, 900...950], [0...999]),
            // Adjacent: merged.
            ([0...9, 10...19], [0...19]),
            // A gap one byte under the coalescing gap merges; a gap of exactly it does not.
            ([0...9, 89...99], [0...99]),
            ([0...9, 90...99], [0...9, 90...99]),
            // The same range many times (amplification attempt) is sent once.
            (Array(repeating: 0...1_000_000, count: 16), [0...1_000_000]),
        ] as [([ClosedRange<UInt64>], [ClosedRange<UInt64>])])
    func coalesces(requested: [ClosedRange<UInt64>], expected: [ClosedRange<UInt64>]) {
        #expect(ByteRangeSet(requested).ranges == expected)
    }

    @Test func neverSelectsMoreThanTheFile() {
        let size: UInt64 = 10_000
        guard case .ranges(let requested) = ByteRangeRequest(header: "bytes=0-,0-,-10000,5-9999,0-0", size: size) else {
            Issue.record("expected ranges")
            return
        }
        let set = ByteRangeSet(requested)
        #expect(set.ranges == [0...9999])
        #expect(set.contentLength == size)
    }

    @Test func sixteenRangesAreServedSeventeenIgnored() {
        let sixteen = "bytes=" + (0..<16).map { "\($0 * 1000)-\($0 * 1000 + 9)" }.joined(separator: ",")
        let seventeen = sixteen + ",20000-20009"
        guard case .ranges(let ranges) = ByteRangeRequest(header: sixteen, size: 100_000) else {
            Issue.record("16 ranges must be served")
            return
        }
        #expect(ByteRangeSet(ranges).ranges.count == 16)
        #expect(ByteRangeRequest(header: seventeen, size: 100_000) == .ignored)
    }
}
