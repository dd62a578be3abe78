/// A parsed `Content-Type` value (RFC 9110 §8.3.1): `type/subtype` lowercased plus its
/// parameters, e.g. `multipart/form-data; boundary="----WebKitFormBoundaryX"`.
public struct MediaType: Sendable, Equatable {
    public var type: String
    public var subtype: String
    /// Parameters in the order sent; names lowercased, values unquoted (case kept: a
    /// multipart boundary is case-sensitive).
    public var parameters: [(name: String, value: String)]

    /// Returns nil when the value is not `token "/" token *( OWS ";" OWS parameter )`.
    public init?(parsing text: String) {
        let trimmed = text.trimmingOWS()
        let utf8 = trimmed.utf8
        let typeBytes = utf8.prefix { HeaderParameters.isTokenByte($0) }
        let afterType = utf8.dropFirst(typeBytes.count)
        guard !typeBytes.isEmpty, afterType.first == UInt8(ascii: "/") else { return nil }
        let subtypeBytes = afterType.dropFirst().prefix { HeaderParameters.isTokenByte($0) }
        guard !subtypeBytes.isEmpty else { return nil }
        let restStart = afterType.dropFirst(1 + subtypeBytes.count).startIndex
        guard let parsed = HeaderParameters(parsing: trimmed[restStart...]) else { return nil }
        self.type = String(decoding: typeBytes, as: UTF8.self).lowercased()
        self.subtype = String(decoding: subtypeBytes, as: UTF8.self).lowercased()
        self.parameters = parsed.parameters
    }

    /// The value of the first parameter called `parameter` (case-insensitive name).
    public subscript(parameter: String) -> String? {
        parameters.first { $0.name.equalsIgnoringASCIICase(parameter) }?.value
    }

    /// True for `multipart/form-data`, the only body type uploads accept (RFC 7578).
    public var isMultipartFormData: Bool { type == "multipart" && subtype == "form-data" }

    /// The `boundary` parameter when it is valid per RFC 2046 §5.1.1, else nil.
    public var multipartBoundary: String? {
        guard let boundary = self["boundary"], Self.isValidBoundary(boundary) else { return nil }
        return boundary
    }

    /// RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`, i.e. 1 to 70 characters of
    /// DIGIT / ALPHA / `'()+_,-./:=?` and space, not ending in a space.
    public static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy(isBoundaryByte)
    }

    private static func isBoundaryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"),
            UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
            true
        default:
            false
        }
    }

    public static func == (lhs: MediaType, rhs: MediaType) -> Bool {
        lhs.type == rhs.type && lhs.subtype == rhs.subtype
            && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}
