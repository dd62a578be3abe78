import Foundation

/// The SHA-256 a server states for what it stored, as 64 lowercase hex digits: from the
/// `Repr-Digest: sha-256=:BASE64:` field (RFC 9530 §3, a Structured Field dictionary of
/// byte sequences) of a PUT or final tus PATCH answer.
enum ReprDigest {
    static func sha256(fieldValue: String) -> String? {
        for member in fieldValue.split(separator: ",") {
            let parts = member.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].lowercased() == "sha-256", parts[1].count > 2,
                  parts[1].hasPrefix(":"), parts[1].hasSuffix(":"),
                  let bytes = Data(base64Encoded: String(parts[1].dropFirst().dropLast())), bytes.count == 32 else { continue }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
        return nil
    }

    /// 64 hex digits, lowercased; nil for anything else.
    static func hex(_ text: String) -> String? {
        let lowered = text.lowercased()
        guard lowered.utf8.count == 64, lowered.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        return lowered
    }
}
