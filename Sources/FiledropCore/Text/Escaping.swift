/// Escaping for the places user-supplied text (file names, paths, headers) ends up:
/// HTML pages, JSON documents, log lines and HTTP header values.
extension String {
    /// Safe in HTML text and in quoted attribute values: `& < > " '` become entities.
    public var htmlEscaped: String {
        guard utf8.contains(where: Self.isHTMLSpecial) else { return self }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 16)
        withUTF8Bytes { Self.appendHTMLEscaped($0, to: &result) }
        return String(decoding: result, as: UTF8.self)
    }

    /// `htmlEscaped` as bytes, appended: byte by byte is exact, since the five specials are
    /// ASCII and UTF-8 never uses ASCII bytes inside a multi-byte character.
    static func appendHTMLEscaped(_ text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        for byte in text {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
    }

    /// The inside of a JSON string literal (RFC 8259 §7), as `JSONWriter` writes strings:
    /// `"` and `\` escaped, control characters as `\u00XX`, and U+2028/U+2029, which end a
    /// line in JavaScript source.
    public var jsonEscaped: String {
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return self }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 16)
        withUTF8Bytes { JSONWriter.appendEscaped($0, to: &result) }
        return String(decoding: result, as: UTF8.self)
    }

    /// An RFC 9110 §5.6.4 quoted-string: `"` and `\` become quoted-pairs; characters a
    /// header value should not carry (controls, non-ASCII) become `_`.
    public var headerQuoted: String {
        var result = "\""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5C: result += "\\" + String(scalar)
            case 0x20...0x7E: result.unicodeScalars.append(scalar)
            default: result += "_"
            }
        }
        return result + "\""
    }

    private static func isHTMLSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        default: false
        }
    }
}

/// Whether a response is shown by the browser or saved (RFC 6266 §4.2).
public enum DispositionType: String, Sendable {
    case attachment
    case inline
}

/// A Content-Disposition value naming `filename` for every client (RFC 6266 §4.3,
/// RFC 8187 §3.2): `attachment; filename="ascii_fallback"; filename*=UTF-8''percent-encoded`.
/// The fallback replaces non-ASCII characters, controls, `"`, `\` and `%` with `_`
/// (RFC 6266 appendix D: some clients decode `%XX` in `filename`).
public func contentDispositionValue(filename: String, disposition: DispositionType = .attachment) -> String {
    if let plain = plainASCIIContentDisposition(filename: filename, disposition: disposition) { return plain }
    var value: [UInt8] = Array("\(disposition.rawValue); filename=\"".utf8)
    value.reserveCapacity(value.count + filename.utf8.count * 4 + 24)
    // One `_` per character a header cannot carry: a user-perceived character, so an accented
    // letter made of two scalars becomes one `_`, not two.
    for character in filename {
        if let ascii = character.asciiValue, (0x20...0x7E).contains(ascii), ascii != UInt8(ascii: "\""),
            ascii != UInt8(ascii: "\\"), ascii != UInt8(ascii: "%")
        {
            value.append(ascii)
        } else {
            value.append(UInt8(ascii: "_"))
        }
    }
    value.append(contentsOf: "\"; filename*=UTF-8''".utf8)
    // RFC 8187 §3.2.1: attr-char is ALPHA / DIGIT / "!#$&+-.^_`|~"; everything else is %XX of UTF-8.
    appendPercentEncoded(filename, keeping: isRFC8187AttrChar, to: &value)
    return String(decoding: value, as: UTF8.self)
}

/// `contentDispositionValue` for a name of printable ASCII only (most names), built as bytes
/// in one pass: there each byte is its own character, so the fallback is a byte-for-byte
/// copy. Nil for any other name, which takes the general path.
private func plainASCIIContentDisposition(filename: String, disposition: DispositionType) -> String? {
    let answer = filename.utf8.withContiguousStorageIfAvailable { name -> String? in
        guard name.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { return nil }
        let kind: StaticString = disposition == .inline ? "inline" : "attachment"
        let fallbackStart: StaticString = "; filename=\""
        let encodedStart: StaticString = "\"; filename*=UTF-8''"
        let capacity = kind.utf8CodeUnitCount + fallbackStart.utf8CodeUnitCount + encodedStart.utf8CodeUnitCount + name.count * 4
        // Written straight into the String's storage: this runs for every download.
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            let hexDigits: StaticString = "0123456789ABCDEF"
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            func put(_ literal: StaticString) {
                for i in 0..<literal.utf8CodeUnitCount { put(literal.utf8Start[i]) }
            }
            put(kind)
            put(fallbackStart)
            for byte in name {
                let replaced = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%")
                put(replaced ? UInt8(ascii: "_") : byte)
            }
            put(encodedStart)
            for byte in name {
                if isRFC8187AttrChar(byte) {
                    put(byte)
                } else {
                    put(UInt8(ascii: "%"))
                    put(hexDigits.utf8Start[Int(byte >> 4)])
                    put(hexDigits.utf8Start[Int(byte & 0x0F)])
                }
            }
            return count
        }
    }
    return answer ?? nil
}

/// RFC 8187 §3.2.1: `attr-char = ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." /
/// "^" / "_" / "`" / "|" / "~"`.
private func isRFC8187AttrChar(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: "-"),
        UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        true
    default: false
    }
}
