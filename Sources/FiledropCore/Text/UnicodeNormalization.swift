/// Unicode Normalization Form C (UAX #15) without Foundation, for file names: `é` typed on
/// macOS (decomposed, NFD) and on Linux or Windows (composed) must name the same file.
///
/// The standard library has no public NFC API and the daemon does not link Foundation, so
/// this is the algorithm of UAX #15 §3 over tables generated from the Unicode database by
/// `scripts/make-nfc-tables.py`: decompose fully, put combining marks in canonical order,
/// compose again. Hangul syllables are decomposed and composed arithmetically (§3.12).
extension String {
    public var nfcNormalized: String {
        // On contiguous bytes: iterating the UTF8View cost 30 instructions a byte.
        if withUTF8Bytes({ $0.allSatisfy { $0 < 0x80 } }) { return self }
        return UnicodeNormalization.nfc(self)
    }
}

enum UnicodeNormalization {
    /// The tables, read from their compact text form the first time a name that is not
    /// plain ASCII needs them.
    private struct Tables: Sendable {
        var decompositions: [UInt32: [UInt32]] = [:]
        var combiningClasses: [UInt32: UInt8] = [:]
        var compositions: [UInt64: UInt32] = [:]

        init() {
            Self.entries(decompositionTable) { key, value in
                decompositions[Self.codes(key)[0]] = Self.codes(value)
            }
            Self.entries(combiningClassTable) { key, value in
                combiningClasses[Self.codes(key)[0]] = UInt8(value, radix: 10)
            }
            Self.entries(compositionTable) { key, value in
                let pair = Self.codes(key)
                compositions[UnicodeNormalization.pairKey(pair[0], pair[1])] = Self.codes(value)[0]
            }
        }

        /// Calls `body` with both sides of each `key:value` entry of a `;`-separated table.
        private static func entries(_ table: StaticString, _ body: (Substring, Substring) -> Void) {
            let text = table.description
            for entry in text.split(separator: ";") {
                guard let colon = entry.firstIndex(of: ":") else { continue }
                body(entry[..<colon], entry[entry.index(after: colon)...])
            }
        }

        /// Space-separated hex code points.
        private static func codes(_ text: Substring) -> [UInt32] {
            text.split(separator: " ").compactMap { UInt32($0, radix: 16) }
        }
    }

    private static let tables = Tables()

    // UAX #15 §3.12, Hangul syllables.
    private static let syllableBase: UInt32 = 0xAC00
    private static let leadingBase: UInt32 = 0x1100
    private static let vowelBase: UInt32 = 0x1161
    private static let trailingBase: UInt32 = 0x11A7
    private static let leadingCount: UInt32 = 19
    private static let vowelCount: UInt32 = 21
    private static let trailingCount: UInt32 = 28
    private static let syllableCount: UInt32 = 11_172

    static func nfc(_ text: String) -> String {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            decompose(scalar.value, into: &scalars)
        }
        putInCanonicalOrder(&scalars)
        compose(&scalars)
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars.compactMap(Unicode.Scalar.init))
        return String(result)
    }

    private static func decompose(_ code: UInt32, into scalars: inout [UInt32]) {
        let syllable = code &- syllableBase
        if syllable < syllableCount {
            scalars.append(leadingBase + syllable / (vowelCount * trailingCount))
            scalars.append(vowelBase + (syllable % (vowelCount * trailingCount)) / trailingCount)
            if syllable % trailingCount != 0 { scalars.append(trailingBase + syllable % trailingCount) }
        } else if let decomposition = tables.decompositions[code] {
            scalars.append(contentsOf: decomposition)
        } else {
            scalars.append(code)
        }
    }

    private static func combiningClass(_ code: UInt32) -> UInt8 {
        code < 0x300 ? 0 : tables.combiningClasses[code] ?? 0
    }

    /// §3.11 canonical ordering: within each run of marks, a stable sort by combining class.
    private static func putInCanonicalOrder(_ scalars: inout [UInt32]) {
        var index = 1
        while index < scalars.count {
            let current = combiningClass(scalars[index])
            var position = index
            while current != 0, position > 0 {
                let previous = combiningClass(scalars[position - 1])
                guard previous > current else { break }
                scalars.swapAt(position - 1, position)
                position -= 1
            }
            index += 1
        }
    }

    /// §3.11 canonical composition: each mark joins the last starter unless something
    /// between them blocks it (a starter, or a mark of the same or a higher class).
    private static func compose(_ scalars: inout [UInt32]) {
        var composed: [UInt32] = []
        composed.reserveCapacity(scalars.count)
        var starter: Int?
        var lastClass: UInt8 = 0
        for code in scalars {
            let currentClass = combiningClass(code)
            if let starter {
                let adjacent = composed.count - 1 == starter
                if adjacent || (lastClass != 0 && lastClass < currentClass),
                    let composite = composite(composed[starter], code)
                {
                    composed[starter] = composite
                    continue
                }
            }
            if currentClass == 0 { starter = composed.count }
            lastClass = currentClass
            composed.append(code)
        }
        scalars = composed
    }

    private static func composite(_ first: UInt32, _ second: UInt32) -> UInt32? {
        let leading = first &- leadingBase
        let vowel = second &- vowelBase
        if leading < leadingCount, vowel < vowelCount {
            return syllableBase + (leading * vowelCount + vowel) * trailingCount
        }
        let syllable = first &- syllableBase
        let trailing = second &- trailingBase
        if syllable < syllableCount, syllable % trailingCount == 0, trailing > 0, trailing < trailingCount {
            return first + trailing
        }
        return tables.compositions[pairKey(first, second)]
    }

    fileprivate static func pairKey(_ first: UInt32, _ second: UInt32) -> UInt64 {
        UInt64(first) << 32 | UInt64(second)
    }
}
