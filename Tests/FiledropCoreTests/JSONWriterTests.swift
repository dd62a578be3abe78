import Foundation
import Testing

@testable import FiledropCore

/// The JSON writer: structure and punctuation, numbers, and string escaping (RFC 8259 §7),
/// checked against Foundation's parser and, byte for byte, against the escaping the server
/// used before the writer existed.
@Suite struct JSONWriterTests {
    static func text(_ body: (inout JSONWriter) -> Void) -> String {
        var json = JSONWriter()
        body(&json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func quoted(_ value: String) -> String {
        text { $0.string(value) }
    }

    /// The escaping `String.jsonEscaped` did scalar by scalar before `JSONWriter`.
    static func referenceEscaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x00..<0x20, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    @Test func objectsArraysAndCommas() {
        let text = Self.text { json in
            json.object { json in
                json.member("name", "a")
                json.member("size", 3)
                json.key("list")
                json.array { json in
                    json.integer(1)
                    json.object { _ in }
                    json.array { _ in }
                    json.null()
                    json.bool(true)
                    json.bool(false)
                }
                json.member("missing", nil as String?)
                json.member("present", "x" as String?)
                json.member("flag", false)
            }
        }
        #expect(text == #"{"name":"a","size":3,"list":[1,{},[],null,true,false],"missing":null,"present":"x","flag":false}"#)
    }

    @Test func emptyContainers() {
        #expect(Self.text { $0.object { _ in } } == "{}")
        #expect(Self.text { $0.array { _ in } } == "[]")
    }

    @Test(arguments: [
        (Int64(0), "0"), (7, "7"), (10, "10"), (-1, "-1"), (1_000_000, "1000000"),
        (.max, "9223372036854775807"), (.min, "-9223372036854775808"),
    ])
    func integers(value: Int64, expected: String) {
        #expect(Self.text { $0.integer(value) } == expected)
    }

    @Test func largestUnsigned() {
        #expect(Self.text { $0.integer(UInt64.max) } == "18446744073709551615")
    }

    @Test func documentEndsWithANewline() {
        let bytes = JSONWriter.document { $0.object { $0.member("a", 1) } }
        #expect(String(decoding: bytes, as: UTF8.self) == "{\"a\":1}\n")
    }

    @Test func quotesAndBackslashes() {
        #expect(Self.quoted(#"say "hi" \ back\slash"#) == #""say \"hi\" \\ back\\slash""#)
    }

    @Test func everyControlCharacterIsAUnicodeEscape() {
        for code in 0..<0x20 {
            let value = "a" + String(UnicodeScalar(UInt8(code))) + "b"
            let hex = String(code, radix: 16)
            #expect(Self.quoted(value) == "\"a\\u" + String(repeating: "0", count: 4 - hex.count) + hex + "b\"")
        }
        // DEL is not a control character to JSON: sent as it is.
        #expect(Self.quoted("\u{7F}") == "\"\u{7F}\"")
    }

    @Test func lineAndParagraphSeparatorsAreEscaped() {
        #expect(Self.quoted("a\u{2028}b\u{2029}c") == #""a\u2028b\u2029c""#)
        // Their neighbours in the same UTF-8 lead bytes pass unchanged.
        #expect(Self.quoted("\u{2027}\u{202A}\u{2020}") == "\"\u{2027}\u{202A}\u{2020}\"")
    }

    @Test func nonASCIIIsCopiedAsUTF8() {
        let value = "Grüße 😀 日本語 é\u{301}"
        #expect(Self.quoted(value) == "\"" + value + "\"")
    }

    /// A lone surrogate cannot be in a Swift String: decoding one gives U+FFFD, which is sent
    /// as it is, so every output is valid UTF-8 and valid JSON.
    @Test func loneSurrogatesCannotReachTheOutput() throws {
        let value = String(decoding: [0x61, 0xED, 0xA0, 0x80, 0x62] as [UInt8], as: UTF8.self)
        #expect(!value.unicodeScalars.contains { (0xD800...0xDFFF).contains($0.value) })
        let text = Self.quoted(value)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? String
        #expect(parsed == value)
    }

    @Test(arguments: [
        "plain", "", "tab\there", "nl\nx", "\u{0}", "quote\"", "\\", "ü\u{2028}\u{1F600}\u{1B}[31m",
        "\u{2029}\u{2029}", "end\u{1F}", "\u{E2}\u{80}",
    ])
    func sameBytesAsBeforeAndParsesBack(value: String) throws {
        #expect(Self.quoted(value) == "\"" + Self.referenceEscaped(value) + "\"")
        #expect(value.jsonEscaped == Self.referenceEscaped(value))
        let parsed = try JSONSerialization.jsonObject(with: Data(Self.quoted(value).utf8), options: .fragmentsAllowed) as? String
        #expect(parsed == value)
    }

    /// A streaming caller takes what is written so far; the pieces make the same document.
    @Test func takeBytesStreamsInPieces() {
        var json = JSONWriter()
        var streamed: [UInt8] = []
        json.object { json in
            json.key("entries")
            json.array { json in
                for index in 0..<1000 {
                    json.object { $0.member("index", index) }
                    if index % 100 == 0 { streamed += json.takeBytes() }
                }
            }
        }
        streamed += json.takeBytes()
        let whole = Self.text { json in
            json.object { json in
                json.key("entries")
                json.array { json in for index in 0..<1000 { json.object { $0.member("index", index) } } }
            }
        }
        #expect(String(decoding: streamed, as: UTF8.self) == whole)
        #expect(json.bytes.isEmpty)
    }
}
