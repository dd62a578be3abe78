import Testing

@testable import FiledropCore

/// The bounded tree reader: every RFC 8259 value, numbers kept exact, and each limit (bytes,
/// depth) refused one step over it.
@Suite struct JSONValueTests {
    @Test func readsEveryKindOfValue() throws {
        let text = #"{"a": [1, -2.5e3, "x\u00e9", true, false, null], "b": {"c": 9223372036854775807}}"#
        let value = try JSONValue.parse(Array(text.utf8), maxBytes: 1024)
        #expect(value["a"] == .array([.number("1"), .number("-2.5e3"), .string("xé"), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"]?.integerValue == Int64.max)
    }

    @Test func refusesOneByteOverTheLimit() throws {
        let body = Array(#"{"alias":"x"}"#.utf8)
        #expect(throws: Never.self) { try JSONValue.parse(body, maxBytes: body.count) }
        #expect(throws: FlatJSONObject.ParseError.self) { try JSONValue.parse(body, maxBytes: body.count - 1) }
    }

    @Test func refusesOneLevelTooDeep() throws {
        let deepest = Array(String(repeating: "[", count: 8).utf8) + Array(String(repeating: "]", count: 8).utf8)
        #expect(throws: Never.self) { try JSONValue.parse(deepest, maxBytes: 100, maxDepth: 8) }
        let tooDeep = Array("[".utf8) + deepest + Array("]".utf8)
        #expect(throws: FlatJSONObject.ParseError.self) { try JSONValue.parse(tooDeep, maxBytes: 100, maxDepth: 8) }
    }

    @Test(arguments: [#"{"a":1,"a":2}"#, "{", "[1,]", "01", "1.", "-", "tru", #"{"a" 1}"#, #""\x""#, "{} {}", "", "\"a\u{01}\""])
    func refusesMalformedText(_ text: String) {
        #expect(throws: FlatJSONObject.ParseError.self) { try JSONValue.parse(Array(text.utf8), maxBytes: 100) }
    }

    @Test func aFractionIsNoInteger() throws {
        #expect(try JSONValue.parse(Array("1.0".utf8), maxBytes: 10).integerValue == nil)
        #expect(try JSONValue.parse(Array("99999999999999999999".utf8), maxBytes: 30).integerValue == nil)
    }
}
