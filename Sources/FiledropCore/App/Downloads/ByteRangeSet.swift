/// The ranges actually served for a multi-range request, after the clean-up RFC 9110 §14.2
/// allows: sorted, overlaps and near neighbours coalesced, so a request can never make us
/// send more bytes than the file holds (range amplification).
struct ByteRangeSet: Equatable {
    /// Ranges separated by fewer bytes than this are merged: a part header costs about as much.
    static let coalescingGap: UInt64 = 80

    /// Inclusive, ascending, disjoint, separated by at least `coalescingGap` bytes.
    let ranges: [ClosedRange<UInt64>]

    init(_ requested: [ClosedRange<UInt64>]) {
        // RFC 9110 §14.2: "a server MAY coalesce any of the ranges that overlap, or that are
        // separated by a gap that is smaller than the overhead of sending multiple parts,
        // regardless of the order in which the corresponding range-spec appeared".
        var merged: [ClosedRange<UInt64>] = []
        for range in requested.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ Self.coalescingGap {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    /// Total bytes of file content the ranges select.
    var contentLength: UInt64 {
        ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound + 1) }
    }
}
