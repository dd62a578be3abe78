import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// `DelimiterSearch` skips windows by one word, filters 64 starts at a time by two bytes, and
/// searches the last bytes one CR at a time: it must still find exactly what a byte-by-byte
/// search finds, whole or cut off by the end of the input, wherever the delimiter falls
/// relative to those steps.
struct DelimiterSearchTests {
    /// The obvious search: the first index where the delimiter starts, or where a proper
    /// prefix of it runs to the end of the input.
    static func reference(_ delimiter: [UInt8], in bytes: [UInt8]) -> DelimiterSearch.Match {
        for start in bytes.indices where bytes[start] == delimiter[0] {
            let available = min(bytes.count - start, delimiter.count)
            guard bytes[start..<start + available].elementsEqual(delimiter[..<available]) else { continue }
            return available == delimiter.count ? .delimiter(at: start) : .partial(at: start)
        }
        return .none
    }

    static func search(_ search: DelimiterSearch, _ bytes: [UInt8]) -> DelimiterSearch.Match {
        bytes.withUnsafeBytes { search.firstMatch(in: $0) }
    }

    /// Short (no skipping: under 11 bytes), the shortest that skips, curl's, Chromium's, and
    /// the longest RFC 2046 allows.
    static let boundaries = [
        "x", "abcdefghij", "abcdefghijk", "------------------------d74496d66958873e",
        "----WebKitFormBoundaryrBIqlYShzUxVU5YK", String(repeating: "7", count: 70),
    ]

    /// Payload that the skip filter crosses (0x00 and bytes above 0x7F), payload it never
    /// skips (ASCII text), and text whose lines end in CR LF.
    static let fillers: [@Sendable (Int) -> UInt8] = [
        { UInt8(truncatingIfNeeded: 0x80 &+ $0 &* 7) },
        { $0 % 5 == 0 ? 0 : UInt8(ascii: "q") },
        { UInt8(ascii: "a") &+ UInt8($0 % 26) },
        { [0x0D, 0x0A, UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "7")][$0 % 5] },
    ]

    @Test(arguments: boundaries)
    func agreesWithAByteByByteSearch(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        let delimiter = search.delimiter
        // Inputs drawn from the delimiter's own bytes (the slow path), from all bytes (the
        // skipping path), from text with CR LF, and from high bytes mixed with the delimiter's
        // (skips that stop and start again), with whole and partial delimiters planted anywhere.
        let alphabets: [[UInt8]] = [
            Array(Set(delimiter)), Array(0...255), [0x0D, 0x0A, 0x2D, 0x00, delimiter.last!],
            Array(Set(delimiter)) + [0x00, 0x80, 0xFF], Array(0x20...0x7E) + [0x0D, 0x0A],
        ]
        var generator = SeededGenerator(state: 0x9E37_79B9_7F4A_7C15)
        for round in 0..<3_000 {
            let alphabet = alphabets[round % alphabets.count]
            let count = Int.random(in: 0...(round % 4 == 0 ? 1_200 : 300), using: &generator)
            var bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            for _ in 0..<Int.random(in: 0...2, using: &generator) where count > 0 {
                let at = Int.random(in: 0..<count, using: &generator)
                let cut = Int.random(in: 1...delimiter.count, using: &generator)
                bytes.replaceSubrange(at..<min(count, at + cut), with: delimiter[..<min(cut, count - at)])
            }
            #expect(Self.search(search, bytes) == Self.reference(delimiter, in: bytes), "input \(bytes)")
        }
    }

    /// The delimiter at every offset across the first vector steps and skip windows, after
    /// each kind of payload.
    @Test(arguments: boundaries)
    func findsTheDelimiterAtEveryOffset(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        for filler in Self.fillers {
            for offset in 0..<3 * DelimiterSearch.vectorWidth + search.delimiter.count {
                let payload = (0..<offset).map(filler)
                let bytes = payload + search.delimiter + (0..<100).map(filler)
                let expected = Self.reference(search.delimiter, in: bytes)
                #expect(Self.search(search, bytes) == expected, "offset \(offset)")
                // CR-LF-text fillers may hold a delimiter prefix; the others must not move it.
                if filler(3) != UInt8(ascii: "-") { #expect(expected == .delimiter(at: offset)) }
            }
        }
    }

    /// A delimiter cut off by the end of the input, at every split and every input length
    /// around the vector width: the prefix is reported, and no byte before it is held back.
    @Test(arguments: boundaries)
    func findsADelimiterCutOffByTheEnd(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        for filler in Self.fillers.prefix(3) {
            for payloadCount in [0, 1, 7, 8, 15, 16, 63, 64, 65, 127, 128, 200, 255, 256, 257, 300] {
                let payload = (0..<payloadCount).map(filler)
                for cut in 1..<search.delimiter.count {
                    let bytes = payload + search.delimiter.prefix(cut)
                    #expect(Self.search(search, bytes) == .partial(at: payloadCount), "payload \(payloadCount), cut \(cut)")
                }
                #expect(Self.search(search, payload) == .none)
            }
        }
    }

    /// Candidates that pass the vector filter (CR and the last byte in place) but differ in
    /// between, at every offset in a vector step, before the real delimiter.
    @Test(arguments: boundaries)
    func rejectsNearMissesAtEveryOffset(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        let delimiter = search.delimiter
        for wrongIndex in Set([1, 2, delimiter.count / 2, delimiter.count - 2]) where wrongIndex < delimiter.count - 1 {
            var nearMiss = delimiter
            nearMiss[wrongIndex] = nearMiss[wrongIndex] == UInt8(ascii: "z") ? UInt8(ascii: "y") : UInt8(ascii: "z")
            for offset in 0..<DelimiterSearch.vectorWidth + 1 {
                let bytes = [UInt8](repeating: 0x80, count: offset) + nearMiss + [UInt8](repeating: 0x80, count: 70) + delimiter
                #expect(
                    Self.search(search, bytes) == .delimiter(at: offset + nearMiss.count + 70),
                    "wrong byte \(wrongIndex), offset \(offset)")
            }
        }
        // The last byte wrong: the vector filter drops it; the tail must too.
        var lastWrong = delimiter
        lastWrong[delimiter.count - 1] ^= 0x01
        for offset in 0..<DelimiterSearch.vectorWidth + 1 {
            let bytes =
                [UInt8](repeating: UInt8(ascii: "a"), count: offset) + lastWrong + [UInt8](repeating: UInt8(ascii: "a"), count: 3)
            #expect(Self.search(search, bytes) == .none, "offset \(offset)")
        }
    }

    @Test(arguments: boundaries)
    func searchesRunsOfCRLFAndDelimiterPrefixes(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        let delimiter = search.delimiter
        let crlf: [UInt8] = [0x0D, 0x0A]
        for runLength in [1, 31, 32, 33, 64, 200] {
            let run = Array([[UInt8]](repeating: crlf, count: runLength).joined())
            #expect(Self.search(search, run + delimiter) == .delimiter(at: run.count))
            #expect(Self.search(search, run) == .partial(at: run.count - 2))
            // Every prefix of the delimiter followed by a CR LF: each one fails at the CR.
            let prefixes = Array((1..<delimiter.count).map { Array(delimiter.prefix($0)) + crlf }.joined())
            #expect(Self.search(search, run + prefixes + delimiter) == .delimiter(at: run.count + prefixes.count))
        }
    }

    @Test(arguments: boundaries)
    func handlesTinyAndEdgeInputs(boundary: String) {
        let search = DelimiterSearch(boundary: boundary)
        #expect(Self.search(search, []) == .none)
        #expect(Self.search(search, [0x0D]) == .partial(at: 0))
        #expect(Self.search(search, [0x0A]) == .none)
        #expect(Self.search(search, Array("payload".utf8) + [0x0D]) == .partial(at: 7))
        #expect(Self.search(search, [0x0D, 0x0D]) == .partial(at: 1))
        #expect(Self.search(search, [0x0D, 0x0A, 0x0D]) == .partial(at: 2))
        #expect(Self.search(search, search.delimiter) == .delimiter(at: 0))
        // A CR as the last byte after a vector step's worth of payload of each kind.
        for filler in Self.fillers.prefix(3) {
            for count in [DelimiterSearch.vectorWidth - 1, 2 * DelimiterSearch.vectorWidth + search.delimiter.count] {
                #expect(Self.search(search, (0..<count).map(filler) + [0x0D]) == .partial(at: count), "count \(count)")
            }
        }
    }

    @Test func findsTheDelimiterRightAfterSkippedWindows() {
        let search = DelimiterSearch(boundary: "abcdefghijklmnop")
        // L = 20: windows of 13 starts are skipped while their word (bytes 12 ..< 20 of the
        // window) holds a zero. The window 65 ..< 78 is the last one skipped (its word 77 ..< 85
        // starts with the last zero): the search goes on exactly at the delimiter.
        let payload = [UInt8](repeating: 0, count: 78)
        #expect(Self.search(search, payload + search.delimiter) == .delimiter(at: 78))
        #expect(Self.search(search, payload + search.delimiter.prefix(4)) == .partial(at: 78))
        #expect(Self.search(search, payload) == .none)
    }

    /// A boundary byte outside what the skip test assumes (not valid per RFC 2046, so the
    /// parser refuses it first) turns skipping off instead of hiding the delimiter: with
    /// skipping on, some window's word would fall on the delimiter's 0xC3 0xA9 and skip it.
    @Test func aBoundaryWithANonASCIIByteIsStillFound() {
        let search = DelimiterSearch(boundary: "boundary-with-\u{E9}-accent")
        for payloadCount in 250..<320 {
            let bytes = [UInt8](repeating: 0xE9, count: payloadCount) + search.delimiter
            #expect(Self.search(search, bytes) == .delimiter(at: payloadCount), "payload \(payloadCount)")
        }
    }
}
