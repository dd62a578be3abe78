/// A parsed `Content-Disposition` header of a form-data part (RFC 7578 §4.2, RFC 6266 §4.1),
/// e.g. `form-data; name="files[]"; filename="a b.txt"; filename*=UTF-8''%E2%82%AC.txt`.
///
/// `filename` is the name as the client meant it: `filename*` (RFC 8187) wins over
/// `filename`; the three escapes browsers put into `filename=` (`%22`, `%0D`, `%0A`, per the
/// WHATWG multipart/form-data encoding algorithm) are undone; raw UTF-8 is kept; the result
/// is NFC. A path (`C:\Users\x\a.txt`, `dir/sub/a.txt`) is returned as sent:
/// `FileNamePolicy` decides what to keep of it.
public struct ContentDisposition: Sendable, Equatable {
    /// Lowercased disposition type, `form-data` for every part of an upload.
    public var type: String
    /// The form field name (`file`, `files[]`, `relativePath`), decoded like `filename`.
    public var name: String?
    /// The client's file name, decoded; nil for a plain form field.
    public var filename: String?

    /// Returns nil when the value is not `token *( OWS ";" OWS parameter )`.
    public init?(parsing text: String) {
        let trimmed = text.trimmingOWS()
        let typeBytes = trimmed.utf8.prefix { HeaderParameters.isTokenByte($0) }
        guard !typeBytes.isEmpty else { return nil }
        let restStart = trimmed.utf8.dropFirst(typeBytes.count).startIndex
        guard let parameters = HeaderParameters(parsing: trimmed[restStart...]) else { return nil }
        self.type = String(decoding: typeBytes, as: UTF8.self).lowercased()
        self.name = parameters["name"].map { Self.undoingFormEscapes($0).nfcNormalized }
        let extended = parameters["filename*"].flatMap(Self.decodeExtendedValue)
        self.filename = (extended ?? parameters["filename"].map(Self.undoingFormEscapes))?.nfcNormalized
    }

    public init(type: String, name: String?, filename: String?) {
        self.type = type
        self.name = name
        self.filename = filename
    }

    /// Browsers (WHATWG HTML "multipart/form-data encoding algorithm") and curl since 7.81
    /// escape `"` as `%22`, CR as `%0D` and LF as `%0A` in names; nothing else is escaped, so
    /// only those three are decoded: a file really called `50%20off.txt` keeps its name.
    static func undoingFormEscapes(_ value: String) -> String {
        guard value.utf8.contains(UInt8(ascii: "%")) else { return value }
        var out: [UInt8] = []
        let bytes = Array(value.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let decoded = formEscape(bytes[index + 1], bytes[index + 2])
            {
                out.append(decoded)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func formEscape(_ high: UInt8, _ low: UInt8) -> UInt8? {
        switch (high, low | 0x20) {
        case (UInt8(ascii: "2"), UInt8(ascii: "2")): UInt8(ascii: "\"")
        case (UInt8(ascii: "0"), UInt8(ascii: "d")): UInt8(ascii: "\r")
        case (UInt8(ascii: "0"), UInt8(ascii: "a")): UInt8(ascii: "\n")
        default: nil
        }
    }

    /// RFC 8187 §3.2.1: `charset "'" [ language ] "'" value-chars`. UTF-8 and ISO-8859-1 are
    /// understood; anything else (or a malformed value) gives nil so `filename` is used.
    static func decodeExtendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, let bytes = percentDecodedBytes(pieces[2]) else { return nil }
        if pieces[0].equalsIgnoringASCIICase("UTF-8") {
            return String(validating: bytes, as: UTF8.self)
        }
        if pieces[0].equalsIgnoringASCIICase("ISO-8859-1") {
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        }
        return nil
    }
}
