/// The lexical layer shared by the two JSON readers (`FlatJSONObject`, `JSONValue`): one
/// cursor over the bytes, whitespace, punctuation and strings (RFC 8259 §7) with their escapes
/// and surrogate pairs, each error naming its byte offset.
struct JSONScanner {
    typealias ParseError = FlatJSONObject.ParseError

    let bytes: [UInt8]
    var index = 0
    /// Containers `JSONValue` may nest; the flat reader opens only one.
    var maxDepth = 1

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func expect(_ byte: UInt8, _ what: String) throws(ParseError) {
        guard peek == byte else { throw ParseError(offset: index, reason: "expected \(what)") }
        index += 1
    }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    /// An object's members, the cursor just past its `{`: unique keys, `value` reading each
    /// value (whitespace before it skipped), up to and past the closing `}`.
    mutating func objectMembers<Value>(_ value: (inout JSONScanner) throws(ParseError) -> Value) throws(ParseError) -> [String:
        Value]
    {
        var members: [String: Value] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "a colon")
            skipWhitespace()
            let member = try value(&self)
            guard members.updateValue(member, forKey: key) == nil else {
                throw ParseError(offset: keyOffset, reason: "the key \"\(key)\" appears twice")
            }
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "a comma or the end of the object")
            return members
        }
    }

    /// A string value: escapes decoded, raw bytes checked as UTF-8 by the String initialiser.
    mutating func string() throws(ParseError) -> String {
        guard peek == UInt8(ascii: "\"") else { throw ParseError(offset: index, reason: "expected a string") }
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek else { throw ParseError(offset: index, reason: "unterminated string") }
            let offset = index
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw ParseError(offset: offset, reason: "invalid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0x00..<0x20:
                throw ParseError(offset: offset, reason: "a control character in a string")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(ParseError) {
        guard let byte = peek else { throw ParseError(offset: index, reason: "unterminated escape") }
        index += 1
        let simple: UInt8?
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = byte
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw ParseError(offset: index - 1, reason: "an unknown escape")
        }
        if let simple {
            utf8.append(simple)
            return
        }
        let offset = index - 2
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // RFC 8259 §7: a character outside the BMP is a surrogate pair of escapes.
            guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw ParseError(offset: offset, reason: "a lone surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw ParseError(offset: offset, reason: "a lone surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw ParseError(offset: offset, reason: "a lone surrogate") }
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
    }

    private mutating func hex4() throws(ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Self.hexValue(byte) else {
                throw ParseError(offset: index, reason: "expected four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
