/// Byte sizes as people write them in configuration: `64M`, `1G`, `512K`, `10`.
/// Suffixes are powers of 1024 (K, M, G, T, either case); a bare number is bytes.
public enum ByteSize {
    private static let suffixes: [(letter: Character, shift: UInt64)] = [("K", 10), ("M", 20), ("G", 30), ("T", 40)]

    /// The number of bytes `text` names, or nil when it is not a size or does not fit in 64 bits.
    public static func parse(_ text: String) -> UInt64? {
        var digits = Substring(text)
        var shift: UInt64 = 0
        if let last = digits.last, let suffix = suffixes.first(where: { $0.letter == Character(last.uppercased()) }) {
            shift = suffix.shift
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let number = UInt64(digits)
        else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
        return overflow ? nil : bytes
    }

    /// The shortest exact spelling of `bytes` that `parse` reads back: 67108864 -> "64M".
    public static func format(_ bytes: UInt64) -> String {
        for suffix in suffixes.reversed() where bytes != 0 && bytes % (1 << suffix.shift) == 0 {
            return "\(bytes >> suffix.shift)\(suffix.letter)"
        }
        return "\(bytes)"
    }
}
