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
            let decoded = Base64.decode(parts[1])
        else { return nil }
        // Base64.decode takes only canonical, padded RFC 4648 §4 text, as browsers and curl send.
        // RFC 7617 §2: user-id must not contain a colon, so the first one separates.
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        // RFC 7617 §2: control characters are not allowed in either part.
        guard !decoded.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        user = Array(decoded[..<colon])
        password = Array(decoded[(colon + 1)...])
    }
}
