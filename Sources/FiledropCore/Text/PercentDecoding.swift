/// Percent-encoding (RFC 3986 §2.1) for URL paths and `filename*` values. `+` is left alone:
/// it means a space only in `application/x-www-form-urlencoded`, never in a path.

/// The bytes `%XX` escapes stand for, or nil when a `%` is not followed by two hex digits.
/// `%2F` becomes `/`: callers that split paths split before decoding, so a decoded `/`
/// inside one component is refused later by `FileNamePolicy`.
public func percentDecodedBytes(_ text: some StringProtocol) -> [UInt8]? {
    let utf8 = text.utf8
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count)
    var index = utf8.startIndex
    while index < utf8.endIndex {
        let byte = utf8[index]
        index = utf8.index(after: index)
        guard byte == UInt8(ascii: "%") else {
            out.append(byte)
            continue
        }
        guard index < utf8.endIndex, let high = hexValue(utf8[index]) else { return nil }
        index = utf8.index(after: index)
        guard index < utf8.endIndex, let low = hexValue(utf8[index]) else { return nil }
        index = utf8.index(after: index)
        out.append(high << 4 | low)
    }
    return out
}

/// Decodes `%XX` escapes into text; nil for a malformed escape or bytes that are not UTF-8.
public func percentDecoded(_ text: some StringProtocol) -> String? {
    // Most path components have no escape: they are already valid UTF-8 text.
    if !text.utf8.contains(UInt8(ascii: "%")) { return String(text) }
    guard let bytes = percentDecodedBytes(text) else { return nil }
    return String(validating: bytes, as: UTF8.self)
}

/// Escapes everything but RFC 3986 §2.3 unreserved characters (`A-Z a-z 0-9 - . _ ~`), so
/// the result is safe as one path segment of a URL, including `/`, `?`, `#`, `%` and spaces.
public func percentEncodedPathComponent(_ text: some StringProtocol) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count)
    appendPercentEncodedPathComponent(text, to: &out)
    return String(decoding: out, as: UTF8.self)
}

/// `percentEncodedPathComponent` appended as bytes (a listing writes one URL per entry).
func appendPercentEncodedPathComponent(_ text: some StringProtocol, to out: inout [UInt8]) {
    appendPercentEncoded(text, keeping: isUnreservedByte, to: &out)
}

/// `text`'s UTF-8 with every byte `keeping` refuses written as `%XX` (upper-case hex): the
/// one percent-encoder, for URL path segments here and RFC 8187 `filename*` values.
func appendPercentEncoded(_ text: some StringProtocol, keeping: (UInt8) -> Bool, to out: inout [UInt8]) {
    let hexDigits: StaticString = "0123456789ABCDEF"
    text.withUTF8Bytes { bytes in
        // Each run of kept bytes goes in with one copy, not a byte at a time: a listing of
        // 100,000 files writes a URL per entry, most with nothing to escape.
        var run = 0
        for index in bytes.indices where !keeping(bytes[index]) {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run..<index]))
            out.append(UInt8(ascii: "%"))
            out.append(hexDigits.utf8Start[Int(bytes[index] >> 4)])
            out.append(hexDigits.utf8Start[Int(bytes[index] & 0x0F)])
            run = index + 1
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[run...]))
    }
}

private func isUnreservedByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        true
    default:
        false
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
