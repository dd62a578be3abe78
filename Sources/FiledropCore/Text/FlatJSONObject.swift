/// Reads one JSON object whose members are all strings (RFC 8259), as a language catalogue
/// is: `{"listing.name": "Name", ...}`. Strict on purpose (`JSONValue` is the reader for
/// bodies with other values): anything but an object of unique string members, a byte over
/// `maxBytes`, invalid UTF-8, a lone surrogate or a control character in a string is an error
/// that names its byte offset. No recursion and no tree of values, so any input is read in one
/// pass with bounded memory, which makes it a fair fuzz target.
public enum FlatJSONObject {
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String

        public var description: String { "byte \(offset): \(reason)" }
    }

    /// 256 KiB: five times the largest catalogue, small enough that a stray file costs nothing.
    public static let defaultMaxBytes = 256 * 1024

    public static func parse(_ bytes: [UInt8], maxBytes: Int = defaultMaxBytes) throws(ParseError) -> [String: String] {
        guard bytes.count <= maxBytes else { throw ParseError(offset: maxBytes, reason: "more than \(maxBytes) bytes") }
        var scanner = JSONScanner(bytes: bytes)
        return try scanner.flatObject()
    }
}

extension JSONScanner {
    /// The whole text as one object of unique string members.
    mutating func flatObject() throws(FlatJSONObject.ParseError) -> [String: String] {
        skipWhitespace()
        try expect(UInt8(ascii: "{"), "an object")
        let members = try objectMembers { (scanner) throws(ParseError) -> String in try scanner.string() }
        skipWhitespace()
        guard index == bytes.count else { throw ParseError(offset: index, reason: "text after the object") }
        return members
    }
}
