/// The SHA-256 of a certificate's DER encoding: what `--fingerprint` pins, what
/// `known_servers` stores and what a person compares with the one the server's page and
/// log show. Written `AB:CD:...` (as `openssl x509 -fingerprint -sha256` prints it);
/// read in that form or as plain hex, in either case, with an optional `sha256:` prefix.
public struct CertificateFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    public let bytes: [UInt8]

    /// A digest computed elsewhere (libcrypto, CryptoKit): this type does no hashing.
    public init?(digest: [UInt8]) {
        guard digest.count == 32 else { return nil }
        bytes = digest
    }

    /// Parses `AB:CD:...`, `abcd...` or `sha256:...`; nil unless it is 32 bytes of hex.
    public init?(_ text: String) {
        var text = Substring(text.trimmingCharactersInSet(" \t"))
        for prefix in ["sha256:", "sha256="] where text.lowercased().hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        let digits = text.utf8.filter { $0 != UInt8(ascii: ":") }
        // Colons go between pairs only: `ABC:D...` is a typo, not a fingerprint.
        if text.contains(":") {
            let groups = text.split(separator: ":", omittingEmptySubsequences: false)
            guard groups.allSatisfy({ $0.utf8.count == 2 }) else { return nil }
        }
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// `AB:CD:...:EF`, upper case.
    public var description: String {
        bytes.map { Self.hex($0) }.joined(separator: ":")
    }

    /// Plain lower-case hex, for places where colons are awkward.
    public var hexString: String {
        bytes.map { Self.hex($0).lowercased() }.joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension String {
    /// Trimming without Foundation's CharacterSet (which would load ICU in the client).
    fileprivate func trimmingCharactersInSet(_ characters: String) -> Substring {
        let set = Set(characters)
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return text
    }
}
