/// The `; name=value` parameter list shared by `Content-Type` (RFC 9110 §5.6.6) and
/// `Content-Disposition` (RFC 6266 §4.1): names are tokens compared case-insensitively,
/// values are tokens or quoted-strings.
struct HeaderParameters {
    /// Parameters in the order sent; names lowercased, values unquoted.
    var parameters: [(name: String, value: String)] = []

    /// Parses everything after the leading `type` (or `type/subtype`), starting at the first
    /// `;`. Returns nil on a syntax error: a parameter without `=`, an empty name, an
    /// unterminated quoted-string, or bytes after a value that are not `;`.
    init?(parsing text: Substring) {
        var rest = text.utf8[...]
        while true {
            rest = rest.drop { Self.isWhitespace($0) }
            guard let first = rest.first else { return }
            guard first == UInt8(ascii: ";") else { return nil }
            rest = rest.dropFirst().drop { Self.isWhitespace($0) }
            // RFC 9110 §5.6.6 allows empty elements (`a/b;;c=d`, `a/b;`).
            if rest.isEmpty { return }
            if rest.first == UInt8(ascii: ";") { continue }
            let name = rest.prefix { Self.isTokenByte($0) }
            guard !name.isEmpty else { return nil }
            rest = rest.dropFirst(name.count).drop { Self.isWhitespace($0) }
            guard rest.first == UInt8(ascii: "=") else { return nil }
            rest = rest.dropFirst().drop { Self.isWhitespace($0) }
            let value: String
            if rest.first == UInt8(ascii: "\"") {
                guard let (unquoted, after) = Self.quotedString(rest.dropFirst()) else { return nil }
                value = unquoted
                rest = after
            } else {
                let token = rest.prefix { Self.isTokenByte($0) }
                guard !token.isEmpty else { return nil }
                value = String(decoding: token, as: UTF8.self)
                rest = rest.dropFirst(token.count)
            }
            parameters.append((name: String(decoding: name, as: UTF8.self).lowercased(), value: value))
        }
    }

    /// The value of the first parameter called `name` (case-insensitive).
    subscript(name: String) -> String? {
        parameters.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// RFC 9110 §5.6.4: a quoted-string, starting after its opening quote. `\` escapes the next
    /// character only when that is `"` or `\`; any other backslash is kept as written, because
    /// old Internet Explorer sends `filename="C:\Users\x\a.txt"` without escaping (Go's
    /// `mime` package makes the same allowance). Returns the text and the bytes after the
    /// closing quote, or nil when the closing quote is missing.
    private static func quotedString(_ bytes: Substring.UTF8View.SubSequence) -> (String, Substring.UTF8View.SubSequence)? {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                return (String(decoding: out, as: UTF8.self), bytes[bytes.index(after: index)...])
            case UInt8(ascii: "\\"):
                let next = bytes.index(after: index)
                if next < bytes.endIndex, bytes[next] == UInt8(ascii: "\"") || bytes[next] == UInt8(ascii: "\\") {
                    out.append(bytes[next])
                    index = bytes.index(after: next)
                    continue
                }
                out.append(byte)
            default:
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
