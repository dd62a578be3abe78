/// The tree reader behind `JSONValue.parse`: recursive descent with the depth counted, so
/// `[[[[...` cannot run the stack out; objects with a repeated key are refused, since two
/// readers of the same body could otherwise disagree about which one counts (RFC 8259 §4).
extension JSONScanner {
    init(bytes: [UInt8], maxDepth: Int) {
        self.init(bytes: bytes)
        self.maxDepth = maxDepth
    }

    mutating func document() throws(ParseError) -> JSONValue {
        let result = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw ParseError(offset: index, reason: "text after the value") }
        return result
    }

    private mutating func value(depth: Int) throws(ParseError) -> JSONValue {
        skipWhitespace()
        guard let byte = peek else { throw ParseError(offset: index, reason: "expected a value") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < maxDepth else { throw ParseError(offset: index, reason: "nested deeper than \(maxDepth)") }
            return byte == UInt8(ascii: "{") ? try object(depth: depth + 1) : try array(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try number())
        }
    }

    private mutating func object(depth: Int) throws(ParseError) -> JSONValue {
        index += 1
        return .object(try objectMembers { (scanner) throws(ParseError) -> JSONValue in try scanner.value(depth: depth) })
    }

    private mutating func array(depth: Int) throws(ParseError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try value(depth: depth))
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "a comma or the end of the array")
            return .array(elements)
        }
    }

    private mutating func literal(_ word: StaticString) throws(ParseError) {
        let start = index
        for offset in 0..<word.utf8CodeUnitCount {
            guard peek == word.utf8Start[offset] else { throw ParseError(offset: start, reason: "expected a value") }
            index += 1
        }
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as text.
    private mutating func number() throws(ParseError) -> String {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw ParseError(offset: start, reason: "expected a value") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek, isDigit(digit) else { throw ParseError(offset: index, reason: "expected a digit") }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek, isDigit(digit) else { throw ParseError(offset: index, reason: "expected a digit") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipDigits() {
        while let byte = peek, isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
