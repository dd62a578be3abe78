/// The user name and password of an `Authorization: Basic` header (RFC 7617). filedrop has
/// one password and ignores the user name, so any name works.
public struct BasicCredentials: Equatable, Sendable {
    /// The user-id, as UTF-8 bytes (RFC 7617 §2.1: the challenge says `charset="UTF-8"`).
    public var user: [UInt8]
    /// Everything after the first colon, as UTF-8 bytes.
    public var password: [UInt8]

    /// RFC 7617 §2 and §2.1: the challenge a 401 carries; `charset` tells browsers to send UTF-8.
    public static let challenge = "Basic realm=\"filedrop\", charset=\"UTF-8\""

    public init(user: [UInt8], password: [UInt8]) {
        self.user = user
        self.password = password
    }

    /// Parses an `Authorization` field value; nil when it is not well-formed Basic credentials.
    /// RFC 9110 §11.1: the scheme is case-insensitive; §11.4: `credentials = auth-scheme [ 1*SP token68 ]`.
    public init?(authorization value: String) {
        let trimmed = value.trimmingOWS()
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].equalsIgnoringASCIICase("basic"),
              let decoded = Base64.decode(parts[1]) else { return nil }
        // RFC 7617 §2: user-id must not contain a colon, so the first one separates.
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        // RFC 7617 §2: control characters are not allowed in either part.
        guard !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        user = Array(decoded[..<colon])
        password = Array(decoded[(colon + 1)...])
    }
}

/// Base64 decoding (RFC 4648 §4) for `token68` credentials: the standard alphabet, padding
/// optional but correct when present, nothing else allowed.
enum Base64 {
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var bytes = Array(text.utf8)
        var padding = 0
        while bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            padding += 1
        }
        guard padding <= 2, bytes.count % 4 != 1, padding == 0 || (bytes.count + padding) % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            guard let value = sextet(byte) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // RFC 4648 §3.5: the unused low bits of the last character must be zero (canonical form).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
