/// Validation of one header (or trailer) field line, shared by `HTTPHeadParser` and the
/// trailer section of `ChunkedDecoder` so both apply exactly the same rules.
enum HTTPFieldLine {
    /// Splits `line` (without its CRLF) into name and value, RFC 9112 §5:
    /// `field-line = field-name ":" OWS field-value OWS`.
    /// - The name is a token; whitespace before the colon is rejected (RFC 9112 §5.1).
    /// - A line starting with SP/HTAB is obs-fold, which we reject (RFC 9112 §5.2).
    /// - The value holds VCHAR, SP, HTAB and obs-text (0x80-0xFF); any other control byte,
    ///   NUL included, is rejected (RFC 9110 §5.5). obs-text is decoded as lossy UTF-8.
    /// Returns where the name ends and where the value (without surrounding white space) is,
    /// and the name's lookup key, made from the bytes at hand (`HTTPHeaders` keeps it).
    static func check(_ line: UnsafeRawBufferPointer) throws(HTTPError) -> (
        nameEnd: Int, value: Range<Int>, key: HTTPFieldName.Key
    ) {
        guard let first = line.first else { throw .malformedHeader("empty field line") }
        if first == .space || first == .tab {
            throw .malformedHeader("obsolete line folding is not accepted")
        }
        var colon = 0
        while colon < line.count, line[colon] != .colon {
            guard isTokenByte(line[colon]) else {
                throw .malformedHeader(
                    line[colon] == .space || line[colon] == .tab
                        ? "whitespace in or after a field name" : "invalid character in a field name")
            }
            colon += 1
        }
        guard colon < line.count else { throw .malformedHeader("field line without a colon") }
        guard colon > 0 else { throw .malformedHeader("empty field name") }

        let invalid = ByteScan.firstInvalidFieldValueByte(in: line, from: colon + 1, to: line.count)
        if invalid < line.count {
            throw .malformedHeader(line[invalid] == 0 ? "NUL in a field value" : "control character in a field value")
        }
        let value = ByteScan.trimmingOWS(in: line, from: colon + 1, to: line.count)
        return (colon, value, HTTPFieldName.Key(UnsafeRawBufferPointer(rebasing: line[0..<colon])))
    }

    /// `check`, with the name and value as Strings (obs-text decoded as lossy UTF-8).
    static func parse(_ line: UnsafeRawBufferPointer) throws(HTTPError) -> (name: String, value: String, key: HTTPFieldName.Key) {
        let field = try check(line)
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<field.nameEnd]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[field.value]), as: UTF8.self)
        return (name, value, field.key)
    }
}

/// RFC 9110 §5.6.2: `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
/// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`.
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
    // The set as two 64-bit masks (bytes 0-63 and 64-127): one shift and test per byte, where
    // a switch over the ranges took several comparisons. Every byte from 128 up is not a tchar.
    let low: UInt64 = 0x03FF_6CFA_0000_0000  // ! # $ % & ' * + - . 0-9
    let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A-Z ^ _ ` a-z | ~
    switch byte {
    case 0..<64: return low >> UInt64(byte) & 1 != 0
    case 64..<128: return high >> UInt64(byte - 64) & 1 != 0
    default: return false
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
