import FiledropHTTP

/// The SHA-256 a client says its PUT body has: RFC 9530 `Repr-Digest: sha-256=:BASE64:`
/// (a structured-field dictionary; other algorithms in it are ignored, §3 lets a recipient
/// do so) or RFC 3230's obsolete `Digest: SHA-256=BASE64`. The upload is published only when
/// the stored bytes have it.
enum ClientDigest {
    static let unreadable = HTTPError.badRequest(
        "The sha-256 digest the request carries is not 32 bytes of base64 (Repr-Digest: sha-256=:BASE64:).")

    /// The expected digest, nil when the client sent none for sha-256; a sha-256 member that
    /// is not 32 bytes of base64 is refused rather than ignored.
    static func expectedSHA256(_ headers: HTTPHeaders) throws(HTTPError) -> [UInt8]? {
        if let field = headers[.reprDigest], let value = member(named: "sha-256", in: field) {
            // RFC 8941 §3.3.5: a byte sequence is base64 between colons.
            guard value.count >= 2, value.first == ":", value.last == ":" else { throw unreadable }
            return try decoded(value.dropFirst().dropLast())
        }
        if let field = headers[.digest], let value = member(named: "sha-256", in: field) {
            return try decoded(value)
        }
        return nil
    }

    /// The value of `name` in a comma-separated list of `name=value` (names compared without
    /// case: RFC 3230 spells it SHA-256, RFC 9530 sha-256).
    private static func member(named name: String, in field: String) -> Substring? {
        for item in field.split(separator: ",") {
            let trimmed = item.drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            if trimmed[..<equals].lowercased() == name {
                let value = trimmed[trimmed.index(after: equals)...]
                return value.prefix(while: { $0 != " " && $0 != "\t" && $0 != ";" })
            }
        }
        return nil
    }

    private static func decoded(_ text: Substring) throws(HTTPError) -> [UInt8] {
        guard let bytes = Base64.decode(text), bytes.count == 32 else { throw unreadable }
        return bytes
    }
}
