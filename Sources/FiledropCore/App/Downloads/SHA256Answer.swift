import FiledropHTTP

/// `GET /files/NAME?sha256`: the file's recorded SHA-256 as one `sha256sum` line
/// (`HEX  NAME\n`), so `curl -O URL; curl URL?sha256 | sha256sum -c` checks a download.
/// 404 when the file has none (uploaded with `sha256 = off`, or its file system keeps no
/// xattrs, or the file does not exist).
struct SHA256Answer {
    let name: String
    let sha256: String?

    func response(format: ResponseFormat) -> Response {
        guard let sha256 else {
            return .error(.notFoundBecause("This file has no recorded SHA-256."), format: format)
        }
        return Response(
            status: .ok, headers: [.contentType: ResponseFormat.text.contentType, .cacheControl: "no-cache"],
            body: .bytes(Array(Self.line(sha256: sha256, name: name).utf8)))
    }

    /// GNU sha256sum's escaping: a name with a backslash, newline or carriage return gets
    /// them escaped and the line a leading backslash, so `sha256sum -c` reads it back.
    static func line(sha256: String, name: String) -> String {
        guard name.contains(where: { $0 == "\\" || $0 == "\n" || $0 == "\r" }) else { return "\(sha256)  \(name)\n" }
        var escaped = ""
        for character in name {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.append(character)
            }
        }
        return "\\\(sha256)  \(escaped)\n"
    }
}
