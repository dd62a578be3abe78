import FiledropCore
import Glibc
import Testing

/// NFC against vectors made from Python's Unicode database (scripts/make-nfc-tables.py):
/// every canonical decomposition composed back, Hangul syllables, and random marks in random
/// order after Latin, Greek, Cyrillic, Hangul and kana bases.
@Suite struct UnicodeNormalizationTests {
    static let vectorsPath: String = {
        var root = Substring(#filePath)
        root = root[..<root.lastIndex(of: "/")!]
        return root + "/Fixtures/nfc/vectors.txt"
    }()

    static func vectors() throws -> [(input: String, expected: String)] {
        let file = try #require(fopen(vectorsPath, "r"))
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let sides = line.split(separator: ";", omittingEmptySubsequences: false).map(Self.text)
            return (sides[0], sides[1])
        }
    }

    private static func text(_ hex: Substring) -> String {
        var scalars = String.UnicodeScalarView()
        for code in hex.split(separator: " ") {
            scalars.append(Unicode.Scalar(UInt32(code, radix: 16)!)!)
        }
        return String(scalars)
    }

    private static func hex(_ text: String) -> String {
        text.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    @Test func everyVectorNormalizesAsTheUnicodeDatabaseSays() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count > 5_000)
        var failures = 0
        for (input, expected) in vectors {
            let normalized = input.nfcNormalized
            // Compare scalars: String == compares canonical equivalence, which would pass an NFD result.
            if Array(normalized.unicodeScalars) != Array(expected.unicodeScalars) {
                failures += 1
                if failures <= 10 {
                    Issue.record("\(Self.hex(input)) -> \(Self.hex(normalized)), expected \(Self.hex(expected))")
                }
            }
        }
        #expect(failures == 0)
    }

    @Test func namesTypedOnMacOSAndLinuxAreTheSame() {
        let decomposed = "Cafe\u{301} de\u{301}ja\u{300} vu.txt"
        #expect(Array(decomposed.nfcNormalized.unicodeScalars) == Array("Café déjà vu.txt".unicodeScalars))
        #expect(Array("\u{1100}\u{1161}\u{11A8}.png".nfcNormalized.unicodeScalars) == Array("\u{AC01}.png".unicodeScalars))
    }

    @Test func plainASCIIAndComposedNamesComeBackUnchanged() {
        for name in ["plain.txt", "", "Ünïcödé.bin", "😀.bin", "日本語.txt"] {
            #expect(Array(name.nfcNormalized.unicodeScalars) == Array(name.unicodeScalars))
        }
    }

    @Test func marksAreOrderedBeforeTheyCompose() {
        // a + dot below (220) + circumflex (230) in either order is ậ (U+1EAD).
        #expect(Array("a\u{302}\u{323}".nfcNormalized.unicodeScalars) == ["\u{1EAD}"])
        #expect(Array("a\u{323}\u{302}".nfcNormalized.unicodeScalars) == ["\u{1EAD}"])
    }
}
