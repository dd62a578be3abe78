import Testing

@testable import FiledropCore

/// The catalogue reader: an object of unique string members and nothing else, escapes decoded,
/// every malformed input an error with its offset, and a size limit.
@Suite struct FlatJSONObjectTests {
    static func parse(_ text: String, maxBytes: Int = FlatJSONObject.defaultMaxBytes) throws(FlatJSONObject.ParseError)
        -> [String: String]
    {
        try FlatJSONObject.parse(Array(text.utf8), maxBytes: maxBytes)
    }

    @Test func readsMembersAndEscapes() throws {
        let members = try Self.parse(#" { "a" : "x", "b.one":"\"q\" \\ \/ \n\t\u00e9\u4e2d\ud83d\ude00", "c": "" } "#)
        #expect(members == ["a": "x", "b.one": "\"q\" \\ / \n\t\u{e9}\u{4e2d}\u{1F600}", "c": ""])
        #expect(try Self.parse("{}") == [:])
        #expect(try Self.parse("{\"k\":\"Größe 简体\"}") == ["k": "Größe 简体"])
    }

    @Test(arguments: [
        "", "[]", "{", "{\"a\"}", "{\"a\":1}", "{\"a\":\"x\",}", "{\"a\":\"x\"} x", "{\"a\":\"x\" \"b\":\"y\"}",
        "{\"a\":\"x\",\"a\":\"y\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}",
        "{\"a\":\"line\nbreak\"}", "{\"a\":\"unterminated}", "{a:\"x\"}", "{\"a\":null}", "{\"a\":{\"b\":\"c\"}}",
    ])
    func refusesAnythingElse(text: String) {
        #expect(throws: FlatJSONObject.ParseError.self) { try Self.parse(text) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: FlatJSONObject.ParseError.self) {
            try FlatJSONObject.parse([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        }
    }

    @Test func errorsNameTheirOffset() {
        #expect(throws: FlatJSONObject.ParseError(offset: 6, reason: "expected a string")) { try Self.parse("{\"a\": 1}") }
    }

    @Test func sizeLimitOneByteOver() throws {
        let text = "{\"a\":\"xy\"}"
        #expect(try Self.parse(text, maxBytes: text.utf8.count) == ["a": "xy"])
        #expect(throws: FlatJSONObject.ParseError.self) { try Self.parse(text, maxBytes: text.utf8.count - 1) }
    }

    /// Every prefix of a valid catalogue is refused, never a crash nor a partial object.
    @Test func everyTruncationIsRefused() {
        let bytes = Array("{\"a\":\"\\u00e9x\",\"b\":\"\\ud83d\\ude00\"}".utf8)
        for end in 0..<bytes.count {
            #expect(throws: FlatJSONObject.ParseError.self) { try FlatJSONObject.parse(Array(bytes[..<end])) }
        }
    }
}
