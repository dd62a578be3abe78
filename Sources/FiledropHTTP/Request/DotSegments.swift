/// RFC 3986 §5.2.4 `remove_dot_segments`, as RFC 9110 §4.2.3 asks of a server normalizing a
/// target, for the `.` segments only: `/files/a/./b.txt` is `/files/a/b.txt`, `/files/a/.`
/// is `/files/a/`. (rclone's HTTP backend asks for `/files/./a:b.txt`, so that the `:` is not
/// read as a scheme.)
///
/// What is left alone, on purpose (the traversal defence of SECURITY.md):
/// - `..` stays in the path. Resolving it would turn `/files/../x` into `/x`, harmless here,
///   but no link we hand out contains one, so it is only ever a probe; left in, it is refused
///   (400 by `FileNamePolicy` under `/files/`, 404 by `StaticSite`) as before.
/// - Only a literal `.` is a dot segment, never `%2e` or `%2E`. RFC 3986 §6.2.2.2 calls `%2E`
///   equivalent to `.`, but clients never encode an unreserved character (§2.3), servers and
///   proxies disagree on whether an encoded dot counts (the source of many traversal bypasses),
///   and decoding before splitting is exactly what filedrop never does. So `%2e` reaches
///   `FileNamePolicy` as a component that decodes to `.` and is refused there with 400, and
///   `%2e%2e` as `..`, refused too.
enum DotSegments {
    /// `path` (origin-form, still percent-encoded) without its `.` segments; `path` itself
    /// when it has none, which is nearly always, or when it is not a `/` path (`*`, CONNECT).
    static func removingSingleDots(from path: Substring) -> Substring {
        guard path.utf8.first == UInt8(ascii: "/"), hasSingleDotSegment(path) else { return path }
        return removingKnownSingleDots(from: path)
    }

    /// `removingSingleDots` for a `/` path known to have a `.` segment.
    static func removingKnownSingleDots(from path: Substring) -> Substring {
        var kept: [UInt8] = []
        kept.reserveCapacity(path.utf8.count)
        // Segments are what lies after each `/`; the first is the empty one before the leading `/`.
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isDot = segment.count == 1 && segment.first == UInt8(ascii: ".")
            let isLast = index == segments.count - 1
            if index > 0, !isDot || isLast { kept.append(UInt8(ascii: "/")) }
            if !isDot { kept.append(contentsOf: segment) }
        }
        return Substring(String(decoding: kept, as: UTF8.self))
    }

    /// Whether some segment is exactly `.`. A loop over the contiguous bytes: indexing
    /// `Substring.UTF8View` cost ~45 instructions a byte. The request-line parser finds the
    /// same while it checks the target's bytes (`RequestTargetShape`), so a parsed head's
    /// path is not looked at twice.
    static func hasSingleDotSegment(_ path: Substring) -> Bool {
        path.withUTF8Bytes { bytes in
            for index in bytes.indices where isSingleDotSegment(at: index, in: bytes, pathEnd: bytes.count) { return true }
            return false
        }
    }

    /// Whether the byte at `index` is a segment that is exactly `.`: a `.` after a `/` and
    /// before a `/` or `pathEnd` (the end of the path, where a query or the target ends).
    @inline(__always)
    static func isSingleDotSegment(at index: Int, in bytes: UnsafeRawBufferPointer, pathEnd: Int) -> Bool {
        bytes[index] == UInt8(ascii: ".") && index > 0 && bytes[index - 1] == UInt8(ascii: "/")
            && (index + 1 == pathEnd || bytes[index + 1] == UInt8(ascii: "/"))
    }
}
