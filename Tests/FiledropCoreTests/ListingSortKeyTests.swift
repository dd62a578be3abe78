import Testing

@testable import FiledropCore

/// The keys must order names exactly as the Strings do (folded, then exactly), whichever path a
/// comparison takes: integer prefixes, the ASCII byte loop past 16 bytes, or String comparison
/// for names with other characters, also when an ASCII name meets one of those.
@Suite struct ListingSortKeyTests {
    static func reference(_ a: String, _ b: String) -> Int {
        let x = ListingOrder.Position.fold(a)
        let y = ListingOrder.Position.fold(b)
        if x != y { return x < y ? -1 : 1 }
        return a == b ? 0 : a < b ? -1 : 1
    }

    static let fixed = [
        "", "a", "A", "a0", "A0", "a_", "B", "Z", "[", "`", "{", "~", "IMG_0001.JPG", "img_0001.jpg", "IMG_0001.jpg",
        "Screenshot 2024-01-01 at 10.00.00.png", "screenshot 2024-01-01 at 10.00.00.png",
        "Screenshot 2024-01-01 at 10.00.01.png", "Screenshot 2024-01-01", "0123456789abcdef", "0123456789ABCDEF",
        "0123456789abcdefg", "0123456789abcdeF", "é", "É", "e\u{301}", "E\u{301}", "ée", "Éf", "😀", "a😀", "A😀b",
        "日本", "Ünïcödé.txt", "unicode.txt", "ÿ", "z",
    ]

    @Test func everyPairOrdersAsTheStringsDo() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "A", "b", "B", "_", "0", "~", " ", ".", "é", "É", "e\u{301}"]
        let base = "Screenshot 2024-01-01 at "
        let random = (0..<200).map { index -> String in
            let length = Int.random(in: 0...20, using: &generator)
            let tail = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            return index % 2 == 0 ? base + tail : tail
        }
        let names = Self.fixed + random
        var nonASCII: [String] = []
        let keys = names.map { ListingSortKey($0, nonASCII: &nonASCII) }
        nonASCII.withUnsafeBufferPointer { nonASCII in
            for i in names.indices {
                for j in names.indices {
                    let got = ListingSortKey.compare(keys[i], keys[j], nonASCII: nonASCII) { (names[i], names[j]) }.signum()
                    #expect(
                        got == Self.reference(names[i], names[j]), "\(names[i].debugDescription) vs \(names[j].debugDescription)")
                }
            }
        }
    }
}
