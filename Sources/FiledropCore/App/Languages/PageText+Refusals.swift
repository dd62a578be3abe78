/// The detail sentences of refusals (`HTTPError`'s free-text cases) in the reader's language.
/// The code writes each sentence in English, as the API sends it to curl and scripts; the
/// English catalogue's `refusal.<name>` texts are those sentences with `{placeholders}` where
/// the code puts a name, a size or a URL. A browser's error page finds the template its
/// sentence was written from, takes the placeholders' values out of it, and fills them into
/// this language's text of the same key. A sentence no template matches stays English.
extension PageText {
    static let refusalPrefix = "refusal."

    /// `english` in this language, or nil when no `refusal.` template matches it. Where two
    /// match ("{name} already exists." and "A file with this name already exists."), the one
    /// with more fixed text is the more specific, and wins.
    func refusal(_ english: String) -> String? {
        var best: (key: String, values: [String: String], fixed: Int)?
        for (key, template) in self.english where key.hasPrefix(Self.refusalPrefix) {
            guard let (values, fixed) = Self.match(english, template: template) else { continue }
            if let current = best, current.fixed > fixed || (current.fixed == fixed && current.key < key) { continue }
            best = (key, values, fixed)
        }
        return best.map { callAsFunction($0.key, $0.values) }
    }

    /// The values of `template`'s placeholders that make it `text`, and how many characters
    /// of fixed text it has; nil when it cannot. Each placeholder stands for at least one
    /// character, and the fixed text after it is its first occurrence (the last placeholder
    /// takes everything up to the template's ending).
    static func match(_ text: String, template: String) -> (values: [String: String], fixed: Int)? {
        var pieces: [Substring] = []
        var names: [String] = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            pieces.append(rest[..<open])
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        pieces.append(rest)
        let fixed = pieces.reduce(0) { $0 + $1.count }
        guard !names.isEmpty else { return text == template ? ([:], fixed) : nil }
        guard text.hasPrefix(pieces[0]) else { return nil }
        var remaining = text.dropFirst(pieces[0].count)
        var values: [String: String] = [:]
        for (index, name) in names.enumerated() {
            let after = pieces[index + 1]
            let value: Substring
            if index == names.count - 1 {
                guard remaining.count > after.count, remaining.hasSuffix(after) else { return nil }
                value = remaining.dropLast(after.count)
                remaining = ""
            } else {
                guard !after.isEmpty, let found = remaining.dropFirst().firstRange(of: after) else { return nil }
                value = remaining[..<found.lowerBound]
                remaining = remaining[found.upperBound...]
            }
            values[name] = String(value)
        }
        return (values, fixed)
    }
}
