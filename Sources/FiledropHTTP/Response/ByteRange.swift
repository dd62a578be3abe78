/// A `Range: bytes=...` request header (RFC 9110 §14.1.2), resolved against a file size.
public enum ByteRangeRequest: Equatable, Sendable {
    /// Serve these inclusive ranges (one or more), in the order asked.
    case ranges([ClosedRange<UInt64>])
    /// Syntactically fine but nothing overlaps the file: 416.
    case unsatisfiable
    /// Not a byte range we understand: ignore it and send the whole file (§14.2).
    case ignored

    /// At most this many ranges per request: a guard against range-amplification abuse.
    public static let maxRanges = 16

    public init(header: String?, size: UInt64) {
        guard let header else {
            self = .ignored
            return
        }
        let trimmed = header.trimmingOWS()
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .ignored
            return
        }
        let specs = trimmed.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false)
        guard !specs.isEmpty, specs.count <= Self.maxRanges else {
            self = .ignored
            return
        }
        var ranges: [ClosedRange<UInt64>] = []
        for rawSpec in specs {
            let spec = rawSpec.trimmingOWS()
            guard let dash = spec.firstIndex(of: "-") else {
                self = .ignored
                return
            }
            let first = spec[..<dash]
            let last = spec[spec.index(after: dash)...]
            if first.isEmpty {
                // Suffix range: the last N bytes.
                guard let suffix = UInt64(last), !last.isEmpty else {
                    self = .ignored
                    return
                }
                if suffix > 0 && size > 0 { ranges.append((size - min(suffix, size))...(size - 1)) }
            } else {
                guard let start = UInt64(first) else {
                    self = .ignored
                    return
                }
                let end: UInt64
                if last.isEmpty {
                    end = size &- 1
                } else {
                    guard let value = UInt64(last), value >= start else {
                        self = .ignored
                        return
                    }
                    end = min(value, size &- 1)
                }
                if start < size { ranges.append(start...end) }
            }
        }
        self = ranges.isEmpty ? .unsatisfiable : .ranges(ranges)
    }
}
