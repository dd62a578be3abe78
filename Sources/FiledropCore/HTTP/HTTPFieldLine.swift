/// Validation of one header (or trailer) field line, shared by `HTTPHeadParser` and the
/// trailer section of `ChunkedDecoder` so both apply exactly the same rules.
enum HTTPFieldLine {
    /// Splits `line` (without its CRLF) into name and value, RFC 9112 §5:
    /// `field-line = field-name ":" OWS field-value OWS`.
    /// - The name is a token; whitespace before the colon is rejected (RFC 9112 §5.1).
    /// - A line starting with SP/HTAB is obs-fold, which we reject (RFC 9112 §5.2).
    /// - The value holds VCHAR, SP, HTAB and obs-text (0x80-0xFF); any other control byte,
    ///   NUL included, is rejected (RFC 9110 §5.5). obs-text is decoded as lossy UTF-8.
    /// `key` is the name's lookup key, made from the bytes at hand (`HTTPHeaders` keeps it).
    static func parse(_ line: UnsafeRawBufferPointer) throws(HTTPError) -> (name: String, value: String, key: HTTPFieldName.Key) {
        guard let first = line.first else { throw .malformedHeader("empty field line") }
        if first == .space || first == .tab {
            throw .malformedHeader("obsolete line folding is not accepted")
        }
        var colon = 0
        while colon < line.count, line[colon] != .colon {
            guard isTokenByte(line[colon]) else {
                throw .malformedHeader(line[colon] == .space || line[colon] == .tab
                    ? "whitespace in or after a field name" : "invalid character in a field name")
            }
            colon += 1
        }
        guard colon < line.count else { throw .malformedHeader("field line without a colon") }
        guard colon > 0 else { throw .malformedHeader("empty field name") }

        var start = colon + 1
        var end = line.count
        let invalid = ByteScan.firstInvalidFieldValueByte(in: line, from: start, to: end)
        if invalid < end {
            throw .malformedHeader(line[invalid] == 0 ? "NUL in a field value" : "control character in a field value")
        }
        while start < end, line[start] == .space || line[start] == .tab { start += 1 }
        while end > start, line[end - 1] == .space || line[end - 1] == .tab { end -= 1 }

        let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<colon])
        let name = String(decoding: nameBytes, as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
        return (name, value, HTTPFieldName.Key(nameBytes))
    }
}

/// RFC 9110 §5.6.2: `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
/// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`.
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E: true
    default: false
    }
}

/// RFC 9110 §5.5: field-value bytes are VCHAR, SP, HTAB and obs-text.
@inline(__always)
func isFieldValueByte(_ byte: UInt8) -> Bool {
    byte >= 0x20 ? byte != 0x7F : byte == .tab
}

extension UInt8 {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
}
