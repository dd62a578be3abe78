/// Writes a JSON text (RFC 8259) straight into bytes, value by value: no tree of values is
/// built, so a listing of 100,000 entries costs its output and nothing else, and a caller
/// that streams can hand on what is written so far (`takeBytes`) at any point.
///
/// The writer places the commas and colons; the caller says what comes in which order:
///
///     var json = JSONWriter()
///     json.object { json in
///         json.member("name", name)
///         json.member("size", size)
///         json.key("tags")
///         json.array { json in for tag in tags { json.string(tag) } }
///     }
///
/// Strings are escaped as `String.jsonEscaped` says; member names are our own ASCII words.
/// Swift strings are always valid Unicode, so no lone surrogate can reach the output.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// A value was just finished in the current container: the next one needs a comma.
    private var needsComma = false

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// One document followed by a newline, as every JSON answer of the server is sent.
    public static func document(capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        body(&writer)
        writer.bytes.append(UInt8(ascii: "\n"))
        return writer.bytes
    }

    /// The bytes written so far, leaving the writer empty (and where it was in the document).
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    // MARK: Containers

    /// `{ ... }`: `body` writes the members (`key` then a value, or `member`).
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    /// `[ ... ]`: `body` writes the elements.
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    /// `"name":`, the value follows. `name` is written as it is: letters, digits and `_` only.
    public mutating func key(_ name: StaticString) {
        assert(
            UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount).allSatisfy(Self.isPlainKeyByte),
            "a member name to escape")
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// `"name":` for a name that comes from data (a map's keys, such as LocalSend's file IDs): escaped.
    public mutating func key(escaping name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8Bytes { Self.appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func integer(_ value: some BinaryInteger) {
        separate()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDecimal(UInt64(value.magnitude))
        } else {
            appendDecimal(UInt64(value))
        }
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    public mutating func null() {
        literal("null")
    }

    // MARK: Members

    public mutating func member(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// A string whose bytes `write` appends as they go in the document: only for text that
    /// needs no escaping by construction (a date, a percent-encoded URL), so none is scanned.
    mutating func member(_ name: StaticString, verbatim write: (inout [UInt8]) -> Void) {
        key(name)
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string, or `null` when there is none.
    public mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: some BinaryInteger) {
        key(name)
        integer(value)
    }

    /// An integer, or `null` when there is none (a limit that is not set).
    public mutating func member(_ name: StaticString, _ value: (some BinaryInteger)?) {
        key(name)
        if let value { integer(value) } else { null() }
    }

    public mutating func member(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    // MARK: Escaping

    /// The inside of a JSON string literal for `text` (RFC 8259 §7), as bytes: `"` and `\`
    /// escaped, control characters as `\u00XX`, and U+2028/U+2029, which end a line in
    /// JavaScript source (a JSON text pasted into a script stays one string). Everything else,
    /// non-ASCII included, is copied as UTF-8. `String.jsonEscaped` is this.
    static func appendEscaped(_ text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        var plainStart = 0
        var index = 0
        while index < text.count {
            let byte = text[index]
            let escapeLength: Int
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                escapeLength = 1
            } else if byte == 0xE2, index + 2 < text.count, text[index + 1] == 0x80,
                text[index + 2] == 0xA8 || text[index + 2] == 0xA9
            {
                escapeLength = 3  // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
            } else {
                index += 1
                continue
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[plainStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0xE2: appendUnicodeEscape(text[index + 2] == 0xA8 ? 0x2028 : 0x2029, to: &bytes)
            default: appendUnicodeEscape(UInt16(byte), to: &bytes)
            }
            index += escapeLength
            plainStart = index
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[plainStart..<text.count]))
    }

    /// `\uXXXX` with lowercase hex digits.
    private static func appendUnicodeEscape(_ unit: UInt16, to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(digits.utf8Start[Int((unit >> UInt16(shift)) & 0xF)])
        }
    }

    private static func isPlainKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    // MARK: Punctuation

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func literal(_ text: StaticString) {
        separate()
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        needsComma = true
    }

    private mutating func appendDecimal(_ value: UInt64) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
