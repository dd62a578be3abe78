import Testing
@testable import FiledropCore

/// `DelimiterSearch` skips windows whose last byte is not in the delimiter: it must still
/// find exactly what a byte-by-byte search finds, whole or cut off by the end of the input.
struct DelimiterSearchTests {
    /// The obvious search: the first index where the delimiter starts, or where a proper
    /// prefix of it runs to the end of the input.
    static func reference(_ delimiter: [UInt8], in bytes: [UInt8]) -> DelimiterSearch.Match {
        for start in bytes.indices {
            let available = min(bytes.count - start, delimiter.count)
            guard bytes[start..<start + available].elementsEqual(delimiter[..<available]) else { continue }
            return available == delimiter.count ? .delimiter(at: start) : .partial(at: start)
        }
        return .none
    }

    /// A fixed-seed generator (xorshift64*) so every run checks the same inputs.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
    }

    @Test(arguments: ["x", "boundary", "----WebKitFormBoundaryrBIqlYShzUxVU5YK", "------------------------d74496d66958873e"])
    func agreesWithAByteByByteSearch(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        let delimiter = search.delimiter
        // Inputs drawn from the delimiter's own bytes (the slow path) and from all bytes
        // (the skipping path), with whole and partial delimiters planted anywhere.
        let alphabets: [[UInt8]] = [Array(Set(delimiter)), Array(0...255), [0x0D, 0x0A, 0x2D, 0x00]]
        var generator = SeededGenerator(state: 0x9E37_79B9_7F4A_7C15)
        for round in 0..<3_000 {
            let alphabet = alphabets[round % alphabets.count]
            let count = Int.random(in: 0...300, using: &generator)
            var bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            if count > 0, Bool.random(using: &generator) {
                let at = Int.random(in: 0..<count, using: &generator)
                let cut = Int.random(in: 1...delimiter.count, using: &generator)
                bytes.replaceSubrange(at..<min(count, at + cut), with: delimiter[..<min(cut, count - at)])
            }
            let found = bytes.withUnsafeBytes { search.firstMatch(in: $0) }
            #expect(found == Self.reference(delimiter, in: bytes), "input \(bytes)")
        }
    }

    @Test func findsTheDelimiterRightAfterASkippedWindow() {
        let search = DelimiterSearch(boundary: "abc")
        // Windows of zeros (not in the delimiter) are skipped; the delimiter starts one byte
        // after the last skipped window, and a prefix of it ends the input.
        let payload = [UInt8](repeating: 0, count: 7 * 3 + 1)
        #expect((payload + search.delimiter).withUnsafeBytes { search.firstMatch(in: $0) } == .delimiter(at: 22))
        #expect((payload + search.delimiter.prefix(4)).withUnsafeBytes { search.firstMatch(in: $0) } == .partial(at: 22))
        #expect(payload.withUnsafeBytes { search.firstMatch(in: $0) } == .none)
    }
}
