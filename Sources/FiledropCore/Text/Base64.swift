/// Base64 with the standard alphabet and `=` padding (RFC 4648 §4): tus carries metadata
/// values and checksums in it.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let first = input[index]
            let second = remaining > 1 ? input[index + 1] : 0
            let third = remaining > 2 ? input[index + 2] : 0
            output.append(alphabet[Int(first >> 2)])
            output.append(alphabet[Int((first & 0x03) << 4 | second >> 4)])
            output.append(remaining > 1 ? alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(third & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not canonical padded base64 (RFC 4648
    /// §3.5: the pad bits must be zero, so every byte string has exactly one spelling).
    public static func decode(_ text: Substring) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding = isLast ? input[index...].reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count : 0
            guard padding <= 2 else { return nil }
            var group: UInt32 = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                let value: UInt32
                if offset >= 4 - padding {
                    value = 0
                } else if let decoded = sextet(byte) {
                    value = decoded
                } else {
                    return nil
                }
                group = group << 6 | value
            }
            let bytes = [
                UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group),
            ]
            // Non-zero bits under the padding would make a second spelling of the same bytes.
            if padding == 1 && bytes[2] != 0 || padding == 2 && bytes[1] != 0 { return nil }
            output.append(contentsOf: bytes.prefix(3 - padding))
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
