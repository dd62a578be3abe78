import Testing

@testable import FiledropCore

@Suite struct PercentDecodingTests {
    @Test func decodesEscapesToUTF8() {
        #expect(percentDecoded("a%20b%E2%82%ACc" as Substring) == "a b€c")
        #expect(percentDecoded("%2e%2E%2f" as Substring) == "../")
        #expect(percentDecoded("plus+stays" as Substring) == "plus+stays")
        #expect(percentDecoded("" as Substring) == "")
    }

    @Test(arguments: ["%", "%2", "%G0", "a%2", "%%41"])
    func malformedEscapesAreNil(_ text: String) {
        #expect(percentDecodedBytes(text) == nil)
        #expect(percentDecoded(text[...]) == nil)
    }

    @Test func invalidUTF8IsNilButBytesDecode() {
        #expect(percentDecoded("%FF%FE" as Substring) == nil)
        #expect(percentDecodedBytes("%FF%00") == [0xFF, 0x00])
    }

    @Test func encodesAllButUnreserved() {
        #expect(percentEncodedPathComponent("a-Z_0.~") == "a-Z_0.~")
        #expect(percentEncodedPathComponent("a b/c?d#e%f") == "a%20b%2Fc%3Fd%23e%25f")
        #expect(percentEncodedPathComponent("é\n") == "%C3%A9%0A")
        // Runs of kept bytes before, between and after escapes, and none at all.
        #expect(percentEncodedPathComponent("") == "")
        #expect(percentEncodedPathComponent(" ab  cd ") == "%20ab%20%20cd%20")
        #expect(percentEncodedPathComponent("IMG_0001.JPG"[...].dropFirst(4)) == "0001.JPG")
    }

    @Test(arguments: ["file\n1.txt", "😀.bin", "quote\"d", "%20", "..", "a/b", "日本語 テキスト"])
    func encodeThenDecodeRoundTrips(_ name: String) {
        #expect(percentDecoded(percentEncodedPathComponent(name)[...]) == name)
    }
}
