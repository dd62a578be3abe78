/// Reads configuration files: one `key = value` per line, `#` or `;` starting a comment
/// line, blank lines ignored. A value may be quoted, `"..."` (with `\"` and `\\` escapes)
/// or `'...'` (literal), to keep surrounding spaces; unquoted values are taken as written,
/// trimmed, so a `#` inside a value is part of it.
enum ConfigFileParser {
    struct Entry: Equatable {
        var key: String
        var value: String
        var line: Int
    }

    static func parse(_ text: String, path: String) throws(ConfigurationError) -> [Entry] {
        var entries: [Entry] = []
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        // "\r\n" is one Character in Swift, so it has to be named as a separator of its own.
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            let line = trimmed(rawLine)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            let malformed = ConfigurationError(
                key: "", value: String(line), reason: .malformedLine,
                location: .file(path: path, line: lineNumber))
            guard let equals = line.firstIndex(of: "=") else { throw malformed }
            let key = String(trimmed(line[..<equals]))
            guard !key.isEmpty else { throw malformed }
            guard let value = unquoted(trimmed(line[line.index(after: equals)...])) else { throw malformed }
            entries.append(Entry(key: key, value: value, line: lineNumber))
        }
        return entries
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }

    /// The value with its quotes removed; nil for an unterminated quote or text after the closing one.
    private static func unquoted(_ value: Substring) -> String? {
        guard let quote = value.first, quote == "\"" || quote == "'" else { return String(value) }
        var result = ""
        var index = value.index(after: value.startIndex)
        while index < value.endIndex {
            let character = value[index]
            if character == quote {
                return value.index(after: index) == value.endIndex ? result : nil
            }
            if quote == "\"", character == "\\" {
                index = value.index(after: index)
                guard index < value.endIndex, value[index] == "\"" || value[index] == "\\" else { return nil }
                result.append(value[index])
            } else {
                result.append(character)
            }
            index = value.index(after: index)
        }
        return nil
    }
}
